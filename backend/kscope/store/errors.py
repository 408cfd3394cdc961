"""The store's errors (a light module: importing it loads neither pyarrow nor a database driver)."""


class TraceNotFound(LookupError):
    """No trace of that id (or not visible with the token given)."""


class SqlRefused(ValueError):
    """A query that is not a single read-only SELECT, or that failed."""


class SqlTimeout(TimeoutError):
    """A query that ran past the time limit (it was interrupted)."""


class SqlTooBig(ValueError):
    """A query whose result encodes to more bytes than the limit, or that needs more memory than
    the per-query limit."""
