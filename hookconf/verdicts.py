"""The statuses every check ends in; shared by the catalog and the report model."""

from enum import StrEnum


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    INDETERMINATE = "indeterminate"  # it ran but could not decide, and says why
    SKIP = "skip"  # it did not apply, and says why; never counted as a pass
    # it found something no spec rule (SHOULD or MUST) asks for: reported as advice, never counted as a problem
    ADVICE = "advice"
