#!/bin/sh
# notify.sh STATUS BRANCH URL: a CI step that reports a build with `bot send`.
# Needs ZULIP_SITE, ZULIP_EMAIL and ZULIP_API_KEY (a bot or user allowed to post in #ci).
set -eu
npx bot send --to ci --topic builds "Build $1: $2 ($3)"
