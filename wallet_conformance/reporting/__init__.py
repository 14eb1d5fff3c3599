"""Reports are pure functions of one list of test records."""
