#!/usr/bin/env bash
# The bash completions offer exactly the long options (and landlordctl's commands) that each
# tool's own --help lists: a flag added to a tool and not to its completion fails here.
# Usage: completions.sh COMPLETIONS_DIR TOOL...
set -uo pipefail
completions="$1"; shift
if [[ ! -r /usr/share/bash-completion/bash_completion ]]; then
  echo "SKIP: bash-completion is not installed"; exit 77
fi
failures=0

# COMPREPLY for the command line "$@" with the cursor on its last word.
complete_line() {
  local file="$1"; shift
  bash -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    function_name="$(complete -p "$1" | sed -E "s/.*-F ([^ ]+).*/\1/")"
    "$function_name" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$@" | sort -u
}
help_options() { "$@" --help 2>&1 | grep -oE '(^|[ ,])--[a-z0-9-]+' | sed 's/^[ ,]//' | sort -u; }
compare() {
  local what="$1" expected="$2" offered="$3"
  local missing extra
  missing="$(comm -23 <(echo "$expected") <(echo "$offered"))"
  extra="$(comm -13 <(echo "$expected") <(echo "$offered"))"
  if [[ -n "$missing" || -n "$extra" ]]; then
    echo "FAIL: $what: not offered: [${missing//$'\n'/ }] offered but unknown: [${extra//$'\n'/ }]"
    failures=$((failures + 1))
  else
    echo "ok: $what ($(wc -l <<<"$expected") words)"
  fi
}

for tool in "$@"; do
  name="$(basename "$tool")"
  file="$completions/$name"
  [[ -r "$file" ]] || { echo "FAIL: no completion file for $name"; failures=$((failures + 1)); continue; }
  offered="$(complete_line "$file" "$name" "" | grep -- '^--')"
  compare "$name options" "$(help_options "$tool")" "$offered"
  # Subcommands (landlord import/export, landlordctl's): offered, and each one's options.
  commands="$("$tool" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}' | sort -u)"
  [[ -z "$commands" ]] && continue
  compare "$name commands" "$commands" "$(complete_line "$file" "$name" "" | grep -v -- '^-')"
  for command in $commands; do
    expected="$(help_options "$tool" "$command")"
    compare "$name $command options" "$expected" \
      "$(complete_line "$file" "$name" "$command" "-" | grep -- '^--')"
  done
done
exit $((failures > 0))
