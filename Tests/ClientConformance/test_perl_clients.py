"""Perl clients from Debian against the emulator, through perl/twitter_client.pl:

- Net::Twitter::Lite::WithAPIv1_1 (libnet-twitter-lite-perl) signs OAuth 1.0a with Net::OAuth
  into the query string of a GET and the form body of a POST (RFC 5849 §3.5.2, §3.5.3);
- Net::Twitter with the API::RESTv1_1 and OAuth traits (libnet-twitter-perl) signs into the
  Authorization header (§3.5.1).

run.sh installs both with scripts/install-deps.sh (apt-get). Where that cannot be done (no apt)
these tests are skipped with a note saying so; in CI (CI=true) a missing client fails instead.
Pointing them at the emulator: `apiurl => 'http://127.0.0.1:PORT/1.1', ssl => 0`.
"""

import json
import os
import pathlib
import shutil
import subprocess

import pytest
from oauthlib.oauth1 import Client

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET, USER_ID,
    as_twitter_sent, assert_tweet_json, twitter_codes, unique,
)

SCRIPT = pathlib.Path(__file__).resolve().parent / "perl" / "twitter_client.pl"
# (the script's client name, the Perl module it loads, the Debian package, where it signs)
CLIENTS = {
    "lite": ("Net::Twitter::Lite::WithAPIv1_1", "libnet-twitter-lite-perl", "query/body"),
    "net-twitter": ("Net::Twitter", "libnet-twitter-perl", "header"),
}


def require_client(client):
    """Skips (or, with CI=true, fails) when perl or the client's module is missing."""
    module, package, _ = CLIENTS[client]
    perl = shutil.which("perl")
    missing = perl is None or subprocess.run(
        [perl, f"-M{module}", "-e", "1"], capture_output=True, timeout=60).returncode != 0
    if missing:
        note = (f"{module} is not installed: `apt-get install {package}` "
                "(run.sh does it through scripts/install-deps.sh where apt-get exists)")
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(note)
        pytest.skip(note)


def run(client, base_url, calls, consumer_secret=CONSUMER_SECRET, token=TOKEN, extra_authorization=None):
    """The calls through the Perl client; one {call, status, body} per call."""
    require_client(client)
    env = dict(os.environ, WAYPOST_CONSUMER_KEY=CONSUMER_KEY, WAYPOST_CONSUMER_SECRET=consumer_secret,
               WAYPOST_TOKEN=token, WAYPOST_TOKEN_SECRET=TOKEN_SECRET)
    env.pop("WAYPOST_EXTRA_AUTHORIZATION", None)
    if extra_authorization:
        env["WAYPOST_EXTRA_AUTHORIZATION"] = extra_authorization
    done = subprocess.run(["perl", str(SCRIPT), client, f"{base_url}/1.1", json.dumps(calls)],
                          capture_output=True, env=env, timeout=90)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    results = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [r["call"] for r in results] == [c[0] for c in calls], results
    return results


def errors(results):
    return [(r["status"], twitter_codes(r["body"]["errors"])) for r in results]


@pytest.mark.parametrize("client", CLIENTS)
def test_located_status_then_verify_credentials(client, base_url, control):
    control.geo_enabled(True)
    text = unique(f"Perl {client} at the café ☕ 1+1=2 & more")
    posted, user = run(client, base_url, [
        ["update", {"status": text, "lat": str(LAT), "long": str(LONG), "display_coordinates": "true"}],
        ["verify_credentials", {}],
    ])
    assert posted["status"] == 200, posted
    assert_tweet_json(posted["body"], text)
    assert posted["body"]["coordinates"] == {"type": "Point", "coordinates": [LONG, LAT]}
    assert user["status"] == 200, user
    assert user["body"]["id"] == USER_ID and user["body"]["screen_name"] == SCREEN_NAME
    assert user["body"]["status"]["text"] == as_twitter_sent(text)
    assert user["body"]["status"]["coordinates"]["coordinates"] == [LONG, LAT]

    update, verify = control.journal("statuses/update"), control.journal("verify_credentials")
    assert [e["status"] for e in update + verify] == [200, 200]
    update, verify = update[0], verify[0]
    assert update["parameters"]["status"] == text
    assert update["parameters"]["lat"] == str(LAT) and update["parameters"]["long"] == str(LONG)
    if client == "lite":
        # Signed in the body of the POST and the query of the GET: parameters, signature redacted.
        for entry in (update, verify):
            assert "authorization" not in entry["headers"], entry
            assert entry["parameters"]["oauth_token"] == TOKEN
            assert entry["parameters"]["oauth_consumer_key"] == CONSUMER_KEY
            assert entry["parameters"]["oauth_signature"] == "REDACTED"
        assert update["headers"]["content-type"].startswith("application/x-www-form-urlencoded")
    else:
        for entry in (update, verify):
            assert not any(name.startswith("oauth_") for name in entry["parameters"]), entry
            assert 'oauth_signature="REDACTED"' in entry["headers"]["authorization"]
            assert f'oauth_token="{TOKEN}"' in entry["headers"]["authorization"]


@pytest.mark.parametrize("client", CLIENTS)
def test_wrong_consumer_secret_is_401_32(client, base_url):
    results = run(client, base_url, [["update", {"status": unique("wrong secret")}], ["verify_credentials", {}]],
                  consumer_secret="guess")
    assert errors(results) == [(401, [32]), (401, [32])]


@pytest.mark.parametrize("client", CLIENTS)
def test_unknown_token_is_401_89(client, base_url):
    results = run(client, base_url, [["update", {"status": unique("unknown token")}], ["verify_credentials", {}]],
                  token="1001-nobody")
    assert errors(results) == [(401, [89]), (401, [89])]


def test_header_and_query_or_body_together_is_400_215(base_url, control):
    # Net::Twitter::Lite signs into the query (GET) and the body (POST); its user agent also
    # sends an OAuth Authorization header (oauthlib's, for the same URL): two places at once.
    header = Client(CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET).sign(
        f"{base_url}/1.1/account/verify_credentials.json")[1]["Authorization"]
    results = run("lite", base_url, [["verify_credentials", {}], ["update", {"status": unique("two places")}]],
                  extra_authorization=header)
    assert errors(results) == [(400, [215]), (400, [215])]
    assert [e["status"] for e in control.journal("/1.1/")] == [400, 400]
