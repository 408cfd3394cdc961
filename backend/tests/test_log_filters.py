"""kscope serve's log filter: tokens never reach the logs, and uvicorn's formatters still work."""

import logging

from uvicorn.logging import AccessFormatter

from kscope.api.log_filters import RedactTokens


def _access_record(path: str) -> logging.LogRecord:
    return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                             ("127.0.0.1:5000", "GET", path, "1.1", 200), None)


def test_an_access_line_keeps_its_five_arguments_and_hides_the_token() -> None:
    record = _access_record("/api/rooms/ABC234/ws?role=presenter&token=s3cret&x=1")
    assert RedactTokens().filter(record)
    line = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s').format(record)
    assert "s3cret" not in line and "token=***&x=1" in line and "200" in line


def test_a_plain_message_with_a_token_is_redacted_and_others_pass_unchanged() -> None:
    record = logging.LogRecord("kscope", logging.INFO, __file__, 1, "opened %s", ("/x?token=abc",), None)
    RedactTokens().filter(record)
    assert record.getMessage() == "opened /x?token=***"
    plain = _access_record("/api/health")
    RedactTokens().filter(plain)
    assert plain.args == ("127.0.0.1:5000", "GET", "/api/health", "1.1", 200)
