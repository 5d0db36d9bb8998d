"""Who is calling: the security policy (keys over Basic, query or OAuth 1.0a), OAuth signatures
and the key cache."""
