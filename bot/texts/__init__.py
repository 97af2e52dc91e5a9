"""What people read, and the only place that formats for them: markup and escaping,
names and vocabulary, numbers, times in the tournament's zone, the standings', rating
and seating texts, the pictures, rule problems as a reader sees them, and the
translations (gettext) that all of them go through.

Values in, text or pictures out: nothing here reads the database or sends anything.
What the use cases say (``bot.services.phrases``) is worded here (``phrases.say``).
Imported by ``handlers``, ``bot.web``, ``bot.publishing``, the read models' exports and
the CLI; never by the use cases (``bot.services``) or the repositories.
"""
