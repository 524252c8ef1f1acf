"""`{% load markdown %}{{ note|markdown }}`: agent-written Markdown as sanitized HTML (runs/readmodels/markdown.py)."""

from typing import Any

from django import template
from django.utils.safestring import SafeString

from runs.readmodels.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown", is_safe=True)
def markdown_filter(value: Any) -> SafeString:
    """None and "" render as nothing; anything else is rendered as its str()."""
    return render_markdown("" if value is None else str(value))
