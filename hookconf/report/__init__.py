"""One versioned report model; one module per output format, all rendering that model."""
