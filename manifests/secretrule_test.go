package manifests

import (
	"strings"
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
	mustHide(t, s, "pa55word")
	// The user name and a query value that says nothing of a secret are
	// configuration.
	mustShow(t, s, "db.internal", "postgres", "app", "admin", "c3rt-0001")
}

// A header value is secret when the header's name says it carries a
// credential, or when it looks like one; other headers are configuration.
func TestEndpoint_AddSecrets_headers(t *testing.T) {
	s := secretsOf(Endpoint{ID: "x", URL: "https://h.example/mcp", Headers: map[string]string{
		"X-Tenant": "acme", "Authorization": "Bearer tok-1", "Cookie": "sid=abcd", "X-Api-Key": "k-12",
		"User-Agent": "agent-0123456789ABCDEF", "X-Region": "europe", "X-Client": "Bearer 0123456789abcdefABCD",
	}})
	mustHide(t, s, "tok-1", "Bearer tok-1", "sid=abcd", "k-12", "agent-0123456789ABCDEF", "0123456789abcdefABCD")
	mustShow(t, s, "Bearer", "h.example", "acme", "europe")
}

// Names say a value is secret by their words: some anywhere, some as a
// word of their own, some only last; ordinary names that hold those
// letters say nothing.
func TestSecretName_words(t *testing.T) {
	for _, n := range []string{"DB_PW", "MYSQL_ROOT_PW", "DB_PASS", "API_KEY", "apiKey", "STRIPE_KEY", "GITHUB_AUTH",
		"PGPASSWORD", "my-token", "SESSION", "SESSION_ID", "sessionId", "x-api-key", "api-key", "PRIVATE_PEM"} {
		if !secretName(n) {
			t.Errorf("%s does not say its value is secret", n)
		}
	}
	for _, n := range []string{"KEYBOARD_LAYOUT", "AUTH_PROVIDER", "SESSION_TTL", "BYPASS_CACHE", "COMPASS_URL",
		"PASSTHROUGH", "AUTHOR", "MONKEY_MODE", "KEY_FILE", "PWD", "OLDPWD", "LOG_LEVEL", "format", "region"} {
		if secretName(n) {
			t.Errorf("%s says its value is secret", n)
		}
	}
}

// What the rule found missing: a webhook URL's key in its path, a
// password in a variable named with PW, a key given as an argument, and a
// credential with letters run into it in a message.
func TestEndpoint_AddSecrets_missed(t *testing.T) {
	hook := "Xk3JqP9vLm2RtY7wZa4BcD6e"
	s := secretsOf(Endpoint{ID: "x", Command: "server",
		Args: []string{"--api-key", "sk-abcdefghijklmnopqrstuvwxyz012345", "--token=tk-9f8e", "--verbose", "ghp_0123456789abcdefABCDEF0123456789abcd"},
		Env: map[string]string{"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0001/B0001/" + hook,
			"DB_PW": "hunter2hunter2", "API_KEY": "abcd1234efgh5678", "AUTH_PROVIDER": "github", "SESSION_TTL": "3600",
			"SEARCH_URL": "https://s.example/q?format=json&region=europe&debug=true&api_key=qk-77"}})
	mustHide(t, s, hook, "hunter2hunter2", "sk-abcdefghijklmnopqrstuvwxyz012345", "tk-9f8e", "ghp_0123456789abcdefABCDEF0123456789abcd", "qk-77")
	if got := s.Text("tokenabcd1234efgh5678s"); strings.Contains(got, "abcd1234efgh5678") {
		t.Errorf("a credential run into letters: %q", got)
	}
	mustShow(t, s, "github", "3600", "json", "europe", "true", "hooks.slack.com", "services", "--verbose")
}

// A value that holds a private key is secret whatever its variable is
// called, and so, by their parts, are the fields of the file around it.
func TestEndpoint_AddSecrets_privateKey(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKB\nwQNdFwqc0P3eAxsPRKbaOZIyMnYzaJn6AnDgGkE7\n-----END PRIVATE KEY-----\n"
	file := `{"type": "service_account", "private_key_id": "0a1b2c3d4e5f6071", "private_key": ` + strings.ReplaceAll(`"`+key+`"`, "\n", `\n`) + `}`
	s := secretsOf(Endpoint{ID: "x", Command: "server", Env: map[string]string{"SERVICE_ACCOUNT": file, "SSH_IDENTITY": key}})
	mustHide(t, s, file, key, "0a1b2c3d4e5f6071", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKB",
		"wQNdFwqc0P3eAxsPRKbaOZIyMnYzaJn6AnDgGkE7")
	mustShow(t, secretsOf(Endpoint{ID: "x", Command: "server", Env: map[string]string{"CERT": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"}}), "MIIB")
}
