/*
 * A stand-in for Windows' bcryptprimitives.dll, for running Go's Windows
 * binaries under Wine 8 (Debian 12), which has no ProcessPrng: Go's runtime
 * asks for it at start and stops when it is missing. It fills the buffer
 * from RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * Built by run.sh with mingw-w64; used only by the tests.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
