"""Tax rates, tax classes and the rates' bulk route through HTTP."""
