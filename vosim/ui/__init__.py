"""Browser UI: watch the VO live in Mesa's SolaraViz (``vosim ui``; needs the ``ui`` extra)."""
