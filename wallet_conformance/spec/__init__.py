"""The specification, read: where the contract's files live (files), their one loader (documents), the requirement
catalogue (catalogue), the facts the suite and the reference read from them (contract: prefixes, messages,
limits, operations), and JSON Schema validation against schemas/ (validation). Imports nothing else of the
package."""
