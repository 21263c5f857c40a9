package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// A secret is taken out only where it stands as a whole token: a value
// that is also part of a word ("info" in "getaddrinfo") leaves the word
// alone, while punctuation, quotes, escapes and encodings around it still
// let it be seen.
func TestSet_Text_wholeTokens(t *testing.T) {
	for _, c := range []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"inside a word", []string{"info"}, "getaddrinfo ENOTFOUND api.example.com", "getaddrinfo ENOTFOUND api.example.com"},
		{"a word of its own", []string{"info"}, "level info: informed", "level [redacted]: informed"},
		{"prefix of a word", []string{"prod"}, "production prod", "production [redacted]"},
		{"digits continue a token", []string{"1234"}, "port 12345, pin 1234", "port 12345, pin [redacted]"},
		{"letters outside ASCII", []string{"geheim"}, "ägeheim geheimé «geheim»", "ägeheim geheimé «[redacted]»"},
		{"punctuation", []string{"tok-123456"}, "(tok-123456) 'tok-123456' tok-123456. tok-123456,x", "([redacted]) '[redacted]' [redacted]. [redacted],x"},
		{"key value", []string{"hunter22"}, "password=hunter22&x=1 pw:hunter22/", "password=[redacted]&x=1 pw:[redacted]/"},
		{"underscore is no letter", []string{"hunter22"}, "KEY_hunter22_x", "KEY_[redacted]_x"},
		{"percent escape before", []string{"hunter22"}, "k%3Dhunter22%26 %2Fhunter22", "k%3D[redacted]%26 %2F[redacted]"},
		{"json escapes before", []string{"hunter22"}, `"\nhunter22\t" "\u0022hunter22\u0022" \x1bhunter22`, `"\n[redacted]\t" "\u0022[redacted]\u0022" \x1b[redacted]`},
		{"base64 padding", []string{"c2VjcmV0"}, "Basic c2VjcmV0== c2VjcmV0x", "Basic [redacted]== c2VjcmV0x"},
		{"edge that is not a letter", []string{"s3cr+t/="}, "(s3cr+t/=y xs3cr+t/=", "([redacted]y xs3cr+t/="},
		{"edge that is not a letter, before", []string{"-abc-def"}, "x-abc-def", "x[redacted]"},
		{"run of secrets", []string{"abcd", "efgh"}, "xabcdefgh abcdefgh", "xabcdefgh [redacted]"},
		{"a secret whole inside a run that is not", []string{"abcd-", "d-xyz"}, "abcd-xyzq", "[redacted]xyzq"},
		{"json string", []string{`a"b<c>`}, `{"k":"a\"b\u003cc\u003e"}`, `{"k":"[redacted]"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s Set
			s.Add(c.secrets...)
			if got := s.Text(c.in); got != c.want {
				t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// FuzzSet_Text: whatever the text and the secrets, Text never panics,
// leaves no secret standing as a whole token between its masks, and gives
// back text that holds no secret at all as it was.
func FuzzSet_Text(f *testing.F) {
	f.Add("key abcdefgh and cdef", "abcdefgh", "cdef", "Bearer tok-1")
	f.Add(`{"k":"a\"b"}`, `a"b!`, "zzzz", "Basic "+base64.StdEncoding.EncodeToString([]byte("u:pass")))
	f.Add("aaaaaaa", "aaaa", "aaab", "x")
	f.Add("d]xy [redacted]xy", "d]xy", "[redacted]", "")
	f.Add("getaddrinfo info", "info", "prod", "")
	f.Add("k%3Dhunter22%26", "hunter22", "", "Bearer hunter22")
	f.Add(`"\u0022hunter22\u0022"`, "hunter22", "22\\u", "")
	f.Add("abcd-xyzq", "abcd-", "d-xyz", "")
	f.Add("ägeheim «geheim»", "geheim", "heim", "")
	f.Fuzz(func(t *testing.T, text, a, b, header string) {
		var s Set
		s.Add(a, b)
		s.AddHeader(header)
		s.AddBasic(a, b)
		out := s.Text(text)
		for _, piece := range strings.Split(out, Mask) {
			if strings.ContainsAny(piece, "[]") {
				// A secret may hold the mask's brackets, and a piece next
				// to a mask then reads otherwise than in the text.
				continue
			}
			if got := s.Text(piece); got != piece {
				t.Fatalf("Text(%q) = %q: %q still holds a secret as a token (%q)", text, out, piece, got)
			}
		}
		hit := false
		for _, v := range s.vals {
			hit = hit || strings.Contains(text, v)
		}
		if !hit && out != text {
			t.Fatalf("Text(%q) = %q changed text that holds no secret", text, out)
		}
	})
}

// A secret of anywhereLen bytes or more is masked even inside a longer
// word; a shorter one only as a whole token.
func TestSet_Text_longAnywhere(t *testing.T) {
	var s Set
	s.Add("abcd1234efgh5678", "info")
	for in, want := range map[string]string{
		"tokenabcd1234efgh5678s": "token" + Mask + "s",
		"getaddrinfo info":       "getaddrinfo " + Mask,
	} {
		if got := s.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}
