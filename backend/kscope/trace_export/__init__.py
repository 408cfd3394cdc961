"""Exporting a stored trace (or a window of it): ftrace text through the C exporter
(export.py, native/from_arrow.py), and the Chrome trace-event JSON that Perfetto UI and
chrome://tracing open (chrome.py); `kscope export` (cli.py). backend/README.md, Export."""
