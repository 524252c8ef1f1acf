"""Reports of a session or of one of its runs, in Markdown and PDF (docs/sharing.md, "Reports")."""

import logging

# WeasyPrint logs at INFO while it loads its own stylesheets (on import), and a warning for each CSS
# feature it skips or id a page repeats (a report holds several runs' partials): noise on a command's
# stderr and in the dashboard's log. Set before any module of this package imports it; errors still show.
logging.getLogger("weasyprint").setLevel(logging.ERROR)
