"""Read models: what the bot shows, assembled from the repositories and computed by the
scoring engine, with no change to anything: the current standings of each tournament
(kept incrementally), the stored seating plans, the judge's card's reads, the /rating
views and the chief judge's exports.

Imported by ``handlers``, ``bot.web``, ``bot.publishing`` and the use cases
(``bot.services``) that must read before they write; they import no use case.
"""
