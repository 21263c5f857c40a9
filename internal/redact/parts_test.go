package redact

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"slices"
	"strings"
	"testing"
)

// serviceAccount is a credential file as a cloud console writes one, with
// a private key of its own, and the key's PEM.
func serviceAccount(t testing.TB) (file, key string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	key = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	data, _ := json.Marshal(map[string]any{
		"type": "service_account", "project_id": "demo-project", "private_key_id": "0123456789abcdef0123456789abcdef01234567",
		"private_key": key, "client_email": "robot@demo-project.iam.gserviceaccount.com",
		"nested": map[string]any{"list": []any{"deep-value-1234", 42}},
	})
	return string(data), key
}

func TestParts(t *testing.T) {
	file, key := serviceAccount(t)
	got := Parts(file)
	lines := strings.Split(strings.TrimSpace(key), "\n")
	body := lines[1 : len(lines)-1]
	for _, want := range append([]string{key, "0123456789abcdef0123456789abcdef01234567", "robot@demo-project.iam.gserviceaccount.com",
		"deep-value-1234", "service_account", strings.Join(body, "\n"), strings.Join(body, "")}, body...) {
		if !slices.Contains(got, strings.TrimSpace(want)) {
			t.Errorf("Parts of the file lack %q", want)
		}
	}
	for _, p := range got {
		if p == "type" || p == "private_key" || p == "42" {
			t.Errorf("Parts holds %q, a key or a number", p)
		}
	}
	for in, want := range map[string][]string{
		"host=db.internal;user=app;password=hunter22": {"db.internal", "hunter22"},
		"a=1&token=abc%2Bdef&b=2":                     {"abc%2Bdef", "abc+def"},
		"USER=ada\nPASSWORD='s3cr3t pw'\n":            {"s3cr3t pw"},
		"sessionid=abcd1234; theme=dark":              {"abcd1234", "dark"},
		"plain-token-0123456789":                      nil,
		"dGVzdHRlc3Q=":                                nil,
		"https://h.example/p?q=1":                     nil,
		`{"a": "b", "c": ["dddd", {"e": "ffff"}]}`:    {"dddd", "ffff"},
		`{"broken": `:                                 nil,
	} {
		if got := Parts(in); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Parts(%q) = %q, want %q", in, got, want)
			}
		}
	}
}

// The parts of a secret are taken out where they stand alone: a line of
// the key, a field of the file, in its JSON-escaped form too.
func TestSet_TextParts(t *testing.T) {
	file, key := serviceAccount(t)
	var s Set
	s.Add(file)
	lines := strings.Split(strings.TrimSpace(key), "\n")
	for _, in := range []string{
		"error: bad key line " + lines[3],
		"key id 0123456789abcdef0123456789abcdef01234567 refused",
		`{"private_key": ` + string(must(json.Marshal(key))) + `}`,
		"whole body " + strings.Join(lines[1:len(lines)-1], ""),
	} {
		out := s.Text(in)
		for _, l := range lines[1 : len(lines)-1] {
			if len(l) >= 12 && strings.Contains(out, l[:12]) {
				t.Errorf("Text(%.40q…) = %q keeps a line of the key", in, out)
			}
		}
		if strings.Contains(out, "0123456789abcdef") || !strings.Contains(out, Mask) {
			t.Errorf("Text(%.40q…) = %q", in, out)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Parts is bounded whatever its input: no more than maxParts, none longer
// than the value, nothing of a value longer than maxStructured.
func FuzzParts(f *testing.F) {
	// A block of the size of a key, without the cost of making one in
	// every worker.
	der := make([]byte, 1200)
	_, _ = rand.Read(der)
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	file := string(must(json.Marshal(map[string]string{"type": "service_account", "private_key": key})))
	for _, s := range []string{file, key, "a=1;b=2", "x=y&z=%zz", `[{"a":["bbbb"]}]`, "-----BEGIN X-----\nabcd\n-----END X-----", strings.Repeat("[", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := Parts(v)
		if len(got) > maxParts || len(v) > maxStructured && len(got) > 0 {
			t.Fatalf("%d parts of %d bytes", len(got), len(v))
		}
		for _, p := range got {
			if len(p) < MinLen || len(p) > len(v) {
				t.Fatalf("part %q of %q", p, v)
			}
		}
	})
}

// What a service account's parts cost each text: the set of one file
// against a tool list's worth of text that holds none of them.
func BenchmarkSet_TextServiceAccount(b *testing.B) {
	file, _ := serviceAccount(b)
	var s Set
	s.Add(file)
	text := strings.Repeat("a tool that lists the files of a bucket, 0123456789; ", 20000) // 1 MiB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = s.Text(text)
	}
	b.ReportMetric(float64(len(s.vals)), "forms")
}
