"""Talking to the target, the transport and nothing above it: the HTTP client that sends the key and keeps every
exchange (api, its policies layered as httpx transports in transports/, what it raises in errors), the secret kept out
of everything it keeps (redaction), the curl line that reproduces a request (curl), and where the target is, with
which keys (target). What an answer or a silence means for conformance is the judge's and the plugin's to say: no
module here names a requirement or an exit status (selftests/test_layers.py)."""
