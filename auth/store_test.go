package auth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func record(server, url, token string) *Record {
	return &Record{Server: server, URL: url, Resource: url, TokenEndpoint: "https://as.example/token",
		Client: Client{ID: "c", Source: ClientRegistered},
		Token:  &Token{AccessToken: token, RefreshToken: "r-" + token, Expiry: time.Now().Add(time.Hour).UTC()}}
}

func TestStore_PutGet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	s := NewStore(dir)
	if r, err := s.Get("notes", "https://a.example/mcp"); r != nil || err != nil {
		t.Fatalf("Get on an empty store = %v, %v", r, err)
	}
	want := record("notes", "https://a.example/mcp", "tok-1")
	if err := s.Put(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("notes", "https://a.example/mcp")
	if err != nil || got == nil || got.Token.AccessToken != "tok-1" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	// "-" and "_" name one server; another URL is another login.
	if got, _ := s.Get("notes", "https://b.example/mcp"); got != nil {
		t.Errorf("a login for another URL was returned")
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(dir)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("store directory mode = %v, want 0700", st.Mode().Perm())
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			info, _ := e.Info()
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s mode = %v, want 0600", e.Name(), info.Mode().Perm())
			}
		}
	}
}

func TestStore_PutIsAtomic(t *testing.T) {
	s := NewStore(t.TempDir())
	const url = "https://a.example/mcp"
	if err := s.Put(record("notes", url, "tok-0")); err != nil {
		t.Fatal(err)
	}
	// Writers replace the record while readers read it: a reader sees one
	// whole record or another, never a torn or empty one.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 16)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := record("notes", url, fmt.Sprintf("tok-%d-%d-%s", w, i, strings.Repeat("x", 4096)))
				if err := s.Put(r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		r, err := s.Get("notes", url)
		if err != nil || r == nil || !strings.HasPrefix(r.Token.AccessToken, "tok-") {
			errs <- fmt.Errorf("read %+v, %v", r, err)
			break
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestStore_ListDelete(t *testing.T) {
	s := NewStore(t.TempDir())
	for _, r := range []*Record{
		record("notes", "https://b.example/mcp", "t1"),
		record("notes", "https://a.example/mcp", "t2"),
		record("notes-archive", "https://a.example/mcp", "t3"),
		record("calendar", "https://c.example/mcp", "t4"),
	} {
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := s.lock("notes", "https://a.example/mcp")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list {
		got = append(got, r.Server+" "+r.URL)
	}
	want := "calendar https://c.example/mcp|notes https://a.example/mcp|notes https://b.example/mcp|notes-archive https://a.example/mcp"
	if strings.Join(got, "|") != want {
		t.Errorf("List = %q", got)
	}
	n, err := s.Delete("notes")
	if err != nil || n != 2 {
		t.Fatalf("Delete = %d, %v; want 2", n, err)
	}
	list, _ = s.List()
	if len(list) != 2 || list[0].Server != "calendar" || list[1].Server != "notes-archive" {
		t.Errorf("after Delete: %+v", list)
	}
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "notes-") && strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("lock file %s left behind", e.Name())
		}
	}
	if n, err := s.Delete("nobody"); n != 0 || err != nil {
		t.Errorf("Delete(nobody) = %d, %v", n, err)
	}
}

func TestStore_Damaged(t *testing.T) {
	s := NewStore(t.TempDir())
	r := record("notes", "https://a.example/mcp", "SECRET-TOKEN")
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	p := s.path("notes", "https://a.example/mcp")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get("notes", "https://a.example/mcp")
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("err = %v", err)
	}
	if n, _ := s.Delete("notes"); n != 1 {
		t.Errorf("a damaged record was not deleted")
	}
}

func TestRecord_Status(t *testing.T) {
	now := time.Now()
	r := record("notes", "https://u:p@a.example/mcp?key=k", "tok")
	st := r.Status(now)
	if st.State != StateValid || !st.Refreshable || st.URL != "https://a.example/mcp" {
		t.Errorf("status = %+v", st)
	}
	data, _ := json.Marshal(st)
	if strings.Contains(string(data), "tok") || strings.Contains(string(data), "key=") {
		t.Errorf("status JSON holds a secret: %s", data)
	}
	if st := r.Status(now.Add(2 * time.Hour)); st.State != StateRefreshable {
		t.Errorf("expired with refresh token: %q", st.State)
	}
	r.Token.RefreshToken = ""
	if st := r.Status(now.Add(2 * time.Hour)); st.State != StateExpired {
		t.Errorf("expired without refresh token: %q", st.State)
	}
	r.Token = nil
	if st := r.Status(now); st.State != StateLoggedOut {
		t.Errorf("no token: %q", st.State)
	}
}
