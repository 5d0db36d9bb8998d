"""What every route shares: the index, routing, errors, bodies, lists, authentication, OAuth."""
