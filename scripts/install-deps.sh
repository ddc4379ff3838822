#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages named as arguments when they are missing.
# Uses sudo when not root. On systems without apt-get it only reports what it would need.
set -euo pipefail
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "waypost: please install: ${missing[*]} (no apt-get here)" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
# Another apt or dpkg at work (unattended-upgrades on a fresh machine, a second `make test`)
# holds its locks: wait for it, up to five minutes, rather than fail on "Could not get lock".
# DPkg::Lock::Timeout covers dpkg's lock (apt >= 1.9.11); `apt-get update`'s lists lock has no
# such option, hence the retries.
apt_get() {
  local tries=60 said
  said=$(mktemp)
  # env: sudo drops DEBIAN_FRONTEND from the environment it is given.
  until $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 "$@" 2>"$said"; do
    if ! grep -q "Could not get lock" "$said" || [ $((tries -= 1)) -eq 0 ]; then
      cat "$said" >&2
      rm -f "$said"
      return 1
    fi
    sleep 5
  done
  cat "$said" >&2 # apt's warnings, shown as they were before the retries
  rm -f "$said"
}
echo "waypost: installing ${missing[*]}" >&2
apt_get update -qq >/dev/null
apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
