package manifests

import (
	"testing"

	"github.com/mcpsh/mcp/internal/redact"
)

// secretsOf is the set AddSecrets makes of ep.
func secretsOf(ep Endpoint) *redact.Set {
	s := new(redact.Set)
	ep.AddSecrets(s)
	return s
}

// mustHide fails unless each value is masked where it stands alone.
func mustHide(t *testing.T, s *redact.Set, values ...string) {
	t.Helper()
	for _, v := range values {
		if got := s.Text("<" + v + ">"); got != "<"+redact.Mask+">" {
			t.Errorf("%q is not taken as a secret: %q", v, got)
		}
	}
}

// mustShow fails unless each value comes through as it is.
func mustShow(t *testing.T, s *redact.Set, values ...string) {
	t.Helper()
	for _, v := range values {
		if got := s.Text("<" + v + ">"); got != "<"+v+">" {
			t.Errorf("%q is taken as a secret: %q", v, got)
		}
	}
}

// Configuration is not secret: values of variables whose names say
// nothing of a secret, that do not look like a credential, and the values
// of headers that carry none.
func TestEndpoint_AddSecrets_configuration(t *testing.T) {
	env := map[string]string{
		"LOG_LEVEL": "info", "NODE_ENV": "production", "DEBUG": "true", "TRANSPORT": "stdio", "FEATURE_X": "disabled",
		"PATH": "/usr/local/bin:/usr/bin:/bin:/opt/tools-2024/bin", "PWD": "/home/ada/project", "OLDPWD": "/home/ada",
		"CONFIG": "/etc/app/config-2024-v2.json", "WINDIR": `C:\Users\Ada0\AppData`,
		"DB_HOST": "db-01.prod.example.com:5432", "UPSTREAM": "https://api.example.com/v1/mcp",
		"MODEL": "claude-3-5-sonnet-20241022", "REGION": "production-eu-west-1", "TZ": "America/New_York",
		"STARTED": "2026-01-01T00:00:00Z", "LANG": "en_US.UTF-8",
	}
	ep := Endpoint{ID: "x", Command: "server", Env: env, Headers: map[string]string{
		"Accept": "application/json, text/event-stream", "content-type": "application/json",
		"User-Agent": "mcp-test/1.0", "MCP-Protocol-Version": "2025-06-18",
	}}
	s := secretsOf(ep)
	for _, v := range env {
		mustShow(t, s, v)
	}
	for _, v := range ep.Headers {
		mustShow(t, s, v)
	}
	if got := s.Text("getaddrinfo ENOTFOUND db-01.prod.example.com (info, production)"); got != "getaddrinfo ENOTFOUND db-01.prod.example.com (info, production)" {
		t.Errorf("Text = %q", got)
	}
}

// A variable's value is secret when its name says so, whatever the value.
func TestEndpoint_AddSecrets_byName(t *testing.T) {
	env := map[string]string{}
	for _, name := range []string{"API_KEY", "apikey", "GITHUB_PERSONAL_ACCESS_TOKEN", "CLIENT_SECRET", "DB_PASSWORD",
		"PGPASSWORD", "MYSQL_PWD", "PASSPHRASE", "BASIC_AUTH", "AWS_CREDENTIALS", "SESSION_COOKIE", "SESSION_ID",
		"PRIVATE_PEM", "WEBHOOK_SIGNATURE", "SENTRY_DSN", "Jwt", "ConnectionString"} {
		env[name] = "value-of-" + name
	}
	env["SHORT_KEY"] = "abcd"
	env["ANOTHER_TOKEN"] = "info"
	s := secretsOf(Endpoint{ID: "x", Command: "server", Env: env})
	for _, v := range env {
		mustHide(t, s, v)
	}
	// A switch is no secret, whatever the name of the variable.
	s = secretsOf(Endpoint{ID: "x", Command: "server", Env: map[string]string{
		"AUTH_ENABLED": "true", "USE_OAUTH": "False", "SESSION_STORE": "disabled", "KEY_CACHE": "enabled", "TOKEN_FILE": "none", "PASS_THROUGH": "null"}})
	mustShow(t, s, "true", "False", "disabled", "enabled", "none", "null")
}

// A value that looks like a credential is secret whatever its variable is
// called; a URL adds the credentials it carries.
func TestEndpoint_AddSecrets_byShape(t *testing.T) {
	values := []string{
		"sk-proj-AbCdEf0123456789xyz",
		"ghp_0123456789abcdefABCDEF0123456789abcd",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		"c2VjcmV0LXZhbHVlLTEyMzQ1Ng==",
		"0123456789abcdef0123",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"123e4567-e89b-12d3-a456-426614174000",
		"ThisIsMyPassword",
	}
	env := map[string]string{"DATABASE_URL": "postgres://admin:pa55word@db.internal:5432/app?sslcert=c3rt-0001"}
	for i, v := range values {
		env["V"+string(rune('A'+i))] = v
	}
	s := secretsOf(Endpoint{ID: "x", Command: "server", Env: env})
	mustHide(t, s, values...)
	mustHide(t, s, "pa55word", "admin", "c3rt-0001")
	mustShow(t, s, "db.internal", "postgres", "app")
}

// Every header value is secret but those of headers that carry none, and
// those count when they look like a credential.
func TestEndpoint_AddSecrets_headers(t *testing.T) {
	s := secretsOf(Endpoint{ID: "x", URL: "https://h.example/mcp", Headers: map[string]string{
		"X-Tenant": "acme", "Authorization": "Bearer tok-1", "Cookie": "sid=abcd",
		"User-Agent": "agent-0123456789ABCDEF",
	}})
	mustHide(t, s, "acme", "tok-1", "Bearer tok-1", "sid=abcd", "agent-0123456789ABCDEF")
	mustShow(t, s, "Bearer", "h.example")
}
