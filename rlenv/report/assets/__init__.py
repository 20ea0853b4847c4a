"""The report page's template, style sheet and script (package data, read by :mod:`rlenv.report.page`)."""
