"""Pattern matching that cannot stall the server: globs in linear time (`glob`), user regexes on a
linear-time engine (`regex`)."""
