"""``python -m bot``'s exit codes (docs/deploy.md); systemd's unit follows them. Apart from
the start (bot.telegram.startup) so that the shell's commands need no aiogram to say them."""

EXIT_CRASH = 1  # an error nobody foresaw (check: unhealthy): restarted
EXIT_SETTINGS = 2  # a setting, argument or file to fix, or another bot on the database
EXIT_UNREACHABLE = 3  # Telegram did not answer: restarted with a growing pause
EXIT_TOKEN = 4  # Telegram refused the token: not restarted
