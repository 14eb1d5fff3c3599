"""Checks and verdicts: the failure types and the one failure format (failures), the checks of one exchange or
value (checks, envelope), each declaring the rule of the exchange judge it stands for (`@rule`, rule), the registry
of those rules every answer is held to (rules), and checks of resources, money and what a refusal looks like, each
in a module named for what it judges. Pure functions of what the target answered: nothing here sends a request."""
