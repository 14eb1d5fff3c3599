"""The validating proxy (`wallet-conformance proxy`): a reverse proxy in front of the target that forwards every
exchange unchanged (forwarding), copies each to the exchange judge and the registry of records off the request path
(side), prints the first break of each requirement and a tally while it runs (live), keeps the traffic in rotated
HAR files (recording), and writes the usual reports when stopped (command). See docs/proxy.md.

    from wallet_conformance.proxy.service import Proxy, ProxyConfig

    with Proxy(ProxyConfig(upstream="https://staging.example.com/v1", listen=("127.0.0.1", 0))) as proxy:
        ...  # send traffic to proxy.base_url
    report = proxy.report()  # conformance.json's content
"""
