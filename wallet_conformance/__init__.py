"""Conformance suite for the Wallet, Collection Account and Transfer Service API.

PYTEST_DONT_REWRITE: installed, the package holds a pytest entry point, so pytest marks it for assertion rewriting;
the installed command has imported it before pytest starts, and no check of the suite is a bare assert.
"""
