"""The one outbound HTTP client (image downloads, webhook deliveries): private targets refused on
every hop, bounded redirects, one deadline, a size cap."""
