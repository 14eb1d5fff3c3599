"""Talking to the target: the HTTP client that sends the key and keeps every exchange (api), the secret kept out of
everything it keeps (redaction), the curl line that reproduces a request (curl), and the target itself, the
bundled reference or a deployed implementation checked by a preflight (target)."""
