"""The pytest plugin of the suite: hooks in small modules, each with one job; the run (plugin/run.py) in `config.stash`.

- options: the command line (and environment) read into the run's Settings, the only reader of pytest's options
- run: the run of one process, built once from Settings (target, secrets, exchange judge, HAR part, ledger, clients)
- session: the run in pytest's session (header, xdist workers, the end; a run that cannot start runs nothing)
- preflight (no hooks): whether the target speaks the protocol, or why the run stops and with which exit status
- collection: the `requirement` marker checked against the catalogue, xdist groups, collection.json
- running: while a test runs, its declared ids are the checks' default requirement, its time is bounded, and what
  stopped it is classified (a failure, a refused setup step, a skip, or an error of the suite itself)
- phase_record: what one phase of a test tells the controlling process, one typed record carried with its report
  (through pytest's report serialisation hooks under xdist)
- recording: one record per test, turned into the reports and the exit status
- early_stop: why a run stopped early, and the 429 answers it met
- fixtures: the core fixtures (settings, target, api, resources, observe)
- allure_labels: Allure labels and attachments
- har_recording: --record-har, every exchange of the run written as HAR 1.2
- passive: --har, recorded traffic judged in place of pytest's session (reporting/recorded.py), nothing sent
- garbage_collection: what collection built is frozen out of the garbage collector's walks

The options module is also pytest's entry point (pyproject.toml), imported before the suite's conftest asks for this
package: PYTEST_DONT_REWRITE keeps pytest from warning that it cannot rewrite asserts here (the plugin has none).
"""

pytest_plugins = [
    "wallet_conformance.plugin.options",
    "wallet_conformance.plugin.session",
    "wallet_conformance.plugin.collection",
    "wallet_conformance.plugin.running",
    "wallet_conformance.plugin.phase_record",
    "wallet_conformance.plugin.recording",
    "wallet_conformance.plugin.early_stop",
    "wallet_conformance.plugin.fixtures",
    "wallet_conformance.plugin.har_recording",
    "wallet_conformance.plugin.passive",
    "wallet_conformance.plugin.garbage_collection",
]
