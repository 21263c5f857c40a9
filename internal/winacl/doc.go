// Package winacl reads, on Windows, who owns a file or directory and whom
// its access list lets in, from its security descriptor: Windows has no
// unix owners and modes (every file reads as 0666, every directory as
// 0777). privdir judges its private directories by it, safefile the files
// it reads. Elsewhere the package is empty.
package winacl
