"""Conformance suite for the Wallet, Collection Account and Transfer Service API."""
