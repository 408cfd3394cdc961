"""Exporting a stored trace (or a window of it): ftrace text through the C exporter, and the
Chrome trace-event JSON that Perfetto UI and chrome://tracing open. See README.md here."""
