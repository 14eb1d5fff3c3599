"""Generated tests' machinery: Schemathesis cases judged by the registry of rules (cases), real records bound into
them (binding), Hypothesis values around every limit (strategies), budgets and the one seed (profiles), and the
money state machine (money_model)."""
