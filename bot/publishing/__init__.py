"""What the tournament's group chat and other people are told: game results, notes, the
standings, and the use cases' notices.

Handlers, ``bot.web`` and the wiring (``bot.app``) import it; it imports the use cases'
plain data (``bot.services``: notices, phrases), the read models, the texts and the
repositories, none of which imports it back (an import contract in pyproject.toml).
Nobody else posts to the group, so flood control, debouncing and the live standings
message live in one place:

* ``publisher``: the API handlers use. A change is recorded with ``enqueue(conn, ...)``
  inside the transaction that makes it (the outbox table; a use case's note is worded
  there, in the group's language), and announced with ``publish(bot, tournament_id)``
  after the commit.
* ``notices``: what a use case leaves to be told (``bot.services.notices.FollowUp``),
  delivered once the acting user has his answer: each notice worded in its reader's
  language with the caller's buttons under it (one that can't arrive is logged, the
  rest still go), then the outbox posted; the game use cases' news through a
  ``GameTeller`` with the handlers' words and buttons.
* ``scheduler``: *when* a tournament's outbox is posted. A change starts a window of
  ``debounce`` seconds; everything arriving within it (ten tables finishing together)
  is posted once at its end. With ``debounce=0`` (tests) the caller awaits the post,
  and changes arriving at the same moment are still coalesced. What failed for a while
  (429, 5xx, the network) is tried again, waiting longer each time, but a new change
  never waits for that back-off; ``close()`` (the dispatcher's shutdown)
  posts whatever still waits, ``resume()`` (its start-up) what a previous run left.
* ``posting``: *what* goes out: the results and notes in as few messages as fit; one
  live standings message per tournament, pinned when the bot may pin, edited in place
  (a new one only when the old one can't be edited; its id and a hash of its text are
  stored, so identical content is never sent again); a picture of the standings when
  a save completes a round. Sending goes through the bot's session (``FloodControl``
  queues within Telegram's limits and waits out 429s).
* ``refusals``: what Telegram refuses for good (no right to send photos, a text too
  long even when split, broken markup) is set aside with its cause, the rest of the
  outbox goes on, a smaller form is tried where one exists (a message line by line, a
  line as plain text, a picture as the standings' text), and the chief judges hear of
  each cause once; ``/tournament`` lists what waits and posts it again
  (``bot.services.set_aside``).
* ``chat_events``: the group moves or goes away: upgraded to a supergroup
  (``chat_migrated``, also FloodControl's ``on_migrate``), the bot removed (its chief
  judges are told privately, once), added back, made an admin.
* the seating before each round: the group's post of a round's seating (text and
  picture, after that round's predecessor's results) and each linked player's own seat,
  privately in his language (``seat_messages``: a player who can't be reached is
  skipped, never retried). Their outbox rows are written by the seating use cases
  (``bot.services.seating_rounds``: the accept, a save completing a round); both are
  drawn from the plan accepted when they are posted.

The texts themselves: ``bot.texts.standings_text`` and ``bot.texts.rating_format``.
"""

from bot.publishing.publisher import Publisher

__all__ = ["Publisher"]
