#!/bin/bash
# The helpers the VM scenarios put into their guest: tests/live's (spin). Quiet on success.
here=$(cd "$(dirname "$0")" && pwd)
"$here/../live/build.sh"
