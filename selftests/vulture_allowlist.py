"""Names the dead-code pass (vulture) would report, each read by a framework or kept on purpose."""

# ruff: noqa: B018, F821
# http.server and socketserver read these class attributes of a handler or server.
_.protocol_version
_.disable_nagle_algorithm
_.close_connection
_.daemon_threads
_.request_queue_size
# uvicorn and Starlette read these (force_exit: a second signal to the proxy; capture_signals: the proxy's server
# overrides uvicorn's).
_.should_exit
_.force_exit
_.capture_signals
_.redirect_slashes
# pytest's parser reads its prog (the installed command's name).
_.prog
# pytest-xdist reads these options: a passive run (--har), and one that cannot start, start no worker.
_.dist
_.tx
# Exit statuses pytest itself gives: part of the one list the README documents.
_.INTERRUPTED
_.INTERNAL_ERROR
_.NO_TESTS_COLLECTED
# asyncio calls a protocol's eof_received (the proxy's client side, proxy/serving.py).
_.eof_received
# httpx calls a transport's handle_request.
_.handle_request
# html.parser calls a parser's handlers (selftests/test_html_report.py reads a page with one).
_.handle_starttag
_.handle_endtag
_.handle_data
# The state machine's teardown, called by Hypothesis.
_.teardown
# Hypothesis' printer of a failing example calls an argument's _repr_pretty_.
_._repr_pretty_
# A webhook payload's field, written for the target that delivers it.
_.statusCode
# Arguments a signature needs but a body does not use (context managers' __exit__, a cache key).
exc_type
exc
traceback
exc_info
cert_file
cert_dir
nextitem
# The interpreter reads where it keeps bytecode (cli._cache_bytecode).
_.pycache_prefix
# The subcommands' runners, named in settings.SUBCOMMANDS ("module:function") and called by the command's dispatcher.
judge_har
