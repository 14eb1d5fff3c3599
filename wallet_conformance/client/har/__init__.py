"""HAR 1.2 files: the suite's exchanges written as HAR entries (--record-har), and recorded entries read back as
exchanges (--har), streamed one entry at a time, every secret header redacted before anything is kept.

A HAR (browser devtools, mitmproxy, Charles, Proxyman, Postman, Insomnia) holds keys and cookies in clear. The
values of `x-service-key`, `Authorization`, cookies and the other secret headers of every entry are registered as
secrets (client/redaction.py) before the entry becomes an exchange, so the key need not be known beforehand: it is
replaced wherever it appears, in headers, URLs and bodies, and in every report written afterwards.

Writing: entry (an exchange as a HAR entry), writer (the one writer of a HAR file, entry by entry), parts (a
process's part file, and the parts joined into one HAR; the proxy's rotated recording is proxy/recording.py).
Reading: stream (a file's entries one at a time; HarError), url_matching (which target, which operation),
headers, secret_learning (the secrets an entry carries), exchange (an entry as an exchange), httpx_response (an
httpx response as an exchange), recorded_files (the files' entries as exchanges of one target).
"""
