package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/filelock"
	"github.com/mcpsh/mcp/internal/safefile"
	"github.com/mcpsh/mcp/manifests"
)

// maxRecordSize bounds one file of the store.
const maxRecordSize = 1 << 20

// Store keeps one Record per server and URL as a JSON file in a directory
// of its own (0700). Files are 0600 and replaced atomically (a temporary
// file renamed over the old one), so a reader sees the old record or the
// new one, never a mix.
type Store struct {
	dir string
}

// DefaultDir is where logins are kept: mcp/tokens under the user's
// configuration directory (os.UserConfigDir).
func DefaultDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "mcp", "tokens"), nil
}

// NewStore returns the store kept in dir, which is created on first write.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Dir is the directory the store keeps its files in.
func (s *Store) Dir() string { return s.dir }

// Record is what a login leaves behind for one server at one URL: the
// authorization server it went through, the client it used and the token.
type Record struct {
	Server string `json:"server"`
	// URL is the MCP endpoint the login is for; the token is sent to its
	// origin only.
	URL string `json:"url"`
	// Resource is the RFC 8707 resource indicator the token was asked for.
	Resource string `json:"resource"`
	// Issuer is the authorization server; empty for a server that
	// publishes no metadata (2025-03-26 default endpoints).
	Issuer                string `json:"issuer,omitempty"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	// RevocationEndpoint is where logout revokes the tokens (RFC 7009);
	// empty when the authorization server offers no revocation.
	RevocationEndpoint string `json:"revocation_endpoint,omitempty"`
	// IssParameter says the server puts iss in its authorization
	// responses (RFC 9207), so one without it is refused.
	IssParameter bool   `json:"iss_parameter,omitempty"`
	Client       Client `json:"client"`
	Token        *Token `json:"token,omitempty"`
	// Scopes were granted (as the token response said, else as asked).
	Scopes []string `json:"scopes,omitempty"`
	// WantScopes were asked for by the server in an insufficient_scope
	// challenge; the next login asks for them too.
	WantScopes []string  `json:"want_scopes,omitempty"`
	Updated    time.Time `json:"updated"`
}

// Client is the OAuth client a login used.
type Client struct {
	ID     string `json:"id"`
	Secret string `json:"secret,omitempty"`
	// AuthMethod is client_secret_basic, client_secret_post or none.
	AuthMethod  string `json:"auth_method"`
	RedirectURI string `json:"redirect_uri"`
	// Source is ClientRegistered, ClientConfigured or ClientMetadataDocument.
	Source string `json:"source"`
	// Issuer is the authorization server a registered client belongs to.
	Issuer string `json:"issuer,omitempty"`
	// SecretExpires is when a registered client's secret expires (zero: never).
	SecretExpires time.Time `json:"secret_expires,omitzero"`
}

// Where a client came from.
const (
	ClientRegistered       = "registered"        // dynamic client registration (RFC 7591)
	ClientConfigured       = "configured"        // oauth.clientId in the binding
	ClientMetadataDocument = "metadata-document" // a client id metadata document URL
)

// Token is an access token and what renews it.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// fileName is the record's file: the canonical server id, then a hash of
// the URL, so one server id bound to two URLs keeps two logins.
func fileName(server, url string) string {
	h := sha256.Sum256([]byte(url))
	return manifests.CanonicalID(server) + "-" + hex.EncodeToString(h[:8]) + ".json"
}

func (s *Store) path(server, url string) string { return filepath.Join(s.dir, fileName(server, url)) }

// Get returns the record for server at url; nil when there is none.
func (s *Store) Get(server, url string) (*Record, error) {
	r, err := readRecord(s.path(server, url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if manifests.CanonicalID(r.Server) != manifests.CanonicalID(server) || r.URL != url {
		return nil, nil
	}
	return r, nil
}

// readRecord reads one file of the store. The file must pass the
// ownership rule (internal/safefile), be the user's own and no symlink: a
// record another user could have put or changed there would send their
// token, or send the user's requests to their authorization server.
func readRecord(path string) (*Record, error) {
	data, err := safefile.Options{NoSymlink: true, Own: true, Limit: maxRecordSize}.Read(path)
	var se *safefile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case errors.As(err, &se) && se.Kind == safefile.Unreadable:
		return nil, &StoreError{File: filepath.Base(path), Problem: "cannot be read (" + safefile.Describe(se.Err) + ")", Err: err}
	case errors.As(err, &se) && se.Kind == safefile.TooLarge:
		return nil, &StoreError{File: filepath.Base(path), Problem: "is too large", Err: err}
	case errors.As(err, &se):
		return nil, &StoreError{File: filepath.Base(path), Problem: se.Problem, Err: err}
	case err != nil:
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		// The message of a JSON error may quote the file: never show it.
		return nil, fmt.Errorf("token store file %s is damaged; `mcp auth logout` removes it", filepath.Base(path))
	}
	return &r, nil
}

// StoreError says why a file of the token store is not used: it is not
// the user's to trust, or cannot be read.
type StoreError struct {
	File, Problem string
	Err           error
}

func (e *StoreError) Error() string {
	return "token store file " + e.File + " " + e.Problem + "; `mcp auth logout` removes it"
}

func (e *StoreError) Unwrap() error { return e.Err }

func (e *StoreError) ExitCode() int { return exit.Config }

// Put writes r atomically with mode 0600.
func (s *Store) Put(r *Record) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path(r.Server, r.URL), append(data, '\n')); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// List returns every record in the store, by server then URL.
func (s *Store) List() ([]*Record, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := readRecord(filepath.Join(s.dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Record) int {
		if c := strings.Compare(manifests.CanonicalID(a.Server), manifests.CanonicalID(b.Server)); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	})
	return out, nil
}

// Delete removes every record of server, whatever its URL, and returns
// how many there were. Damaged files of that server go too.
func (s *Store) Delete(server string) (int, error) {
	records, locks, err := s.filesOf(server)
	n := len(records)
	var errs []error
	for _, name := range append(records, locks...) {
		if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(append(errs, err)...)
}

// Records returns the readable records of server, whatever their URL;
// damaged files are left out.
func (s *Store) Records(server string) ([]*Record, error) {
	names, _, err := s.filesOf(server)
	var out []*Record
	for _, name := range names {
		if r, err := readRecord(filepath.Join(s.dir, name)); err == nil {
			out = append(out, r)
		}
	}
	return out, err
}

// filesOf lists the record files and lock files of server.
func (s *Store) filesOf(server string) (records, locks []string, err error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	prefix := manifests.CanonicalID(server) + "-"
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		// The rest is the URL hash: 16 hex digits and an extension, so a
		// server whose id extends this one ("a" and "a-b") is not touched.
		if !ok || len(rest) < 16 || strings.ContainsRune(rest[:16], '-') {
			continue
		}
		switch rest[16:] {
		case ".json":
			records = append(records, name)
		case ".lock":
			locks = append(locks, name)
		}
	}
	return records, locks, nil
}

// lock takes the cross-process lock of one record, so that two processes
// do not both spend one refresh token. unlock releases it.
func (s *Store) lock(server, url string) (unlock func(), err error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	p := strings.TrimSuffix(s.path(server, url), ".json") + ".lock"
	unlock, err = filelock.Lock(p)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	return unlock, nil
}
