"""Cut the guest's BEGIN/END sections out of a serial log.

The guest writes each result between marker lines:

    @@KSCOPE-BEGIN trace@@
    # tracer: nop
    ...
    @@KSCOPE-END trace@@

Serial text arrives with CRLF line ends (the tty's ONLCR), and on the console
port kernel messages can land between or inside lines ("[   12.345678] rcu: ...").
The extractor normalizes line ends, finds markers anywhere in a line, and
drops printk lines inside a section. A section that begins but never ends
means the guest died mid-dump: that is an error, not a short trace.
"""

import re

BEGIN = "@@KSCOPE-BEGIN {}@@"
END = "@@KSCOPE-END {}@@"
_MARKER = re.compile(r"@@KSCOPE-(BEGIN|END) ([A-Za-z0-9_.-]+)@@")
_PRINTK = re.compile(r"^\[\s*\d+\.\d+\] ")


class SerialLogError(ValueError):
    """The log lacks a section, or one is cut short (the message says which)."""


def normalize(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def sections(raw: bytes) -> dict[str, str]:
    """{name: text} for every complete section; SerialLogError for one left open."""
    found: dict[str, str] = {}
    open_name: str | None = None
    body: list[str] = []
    for line in normalize(raw).split("\n"):
        match = _MARKER.search(line)
        if match is None:
            if open_name is not None and not _PRINTK.match(line):
                body.append(line)
            continue
        kind, name = match.groups()
        before = line[:match.start()]
        if kind == "BEGIN":
            if open_name is not None:
                raise SerialLogError(f"section {open_name!r} has no END before {name!r} begins")
            open_name, body = name, []
        elif name == open_name:
            if before.strip() and not _PRINTK.match(before):
                body.append(before)  # the END marker came without its newline first
            while body and body[-1] == "":  # the guest adds one newline in case the text lacked it
                body.pop()
            found[name] = "\n".join(body) + ("\n" if body else "")
            open_name = None
    if open_name is not None:
        raise SerialLogError(f"section {open_name!r} never ended: the guest stopped mid-dump "
                             f"({sum(1 for b in body if b)} lines received)")
    return found


def require(found: dict[str, str], *names: str) -> None:
    missing = [n for n in names if n not in found]
    if missing:
        raise SerialLogError(f"the guest sent no {', '.join(missing)} section(s)")
