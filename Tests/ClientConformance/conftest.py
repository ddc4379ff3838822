"""Shared fixtures: where the emulator is, its control plane, demo credentials, fixture places.

run.sh starts `waypost emulator --port 0` and exports WAYPOST_EMULATOR=http://127.0.0.1:PORT.
Every test starts from a reset emulator (posts, journal, rate-limit windows, clock offset,
faults, geo_enabled and permissions back to the demo configuration).
"""

import html
import json
import os
import pathlib
import time

import pytest
import requests

# Demo credentials `waypost emulator` prints (valid only there).
CONSUMER_KEY = "waypost-demo-consumer"
CONSUMER_SECRET = "waypost-demo-consumer-secret"
TOKEN = "1001-waypost-demo-token"
TOKEN_SECRET = "waypost-demo-token-secret"
USER_ID = 1001
SCREEN_NAME = "waypost_demo"
GRAPH_TOKEN = "waypost-demo-graph-token"
GRAPH_USER_ID = "2001"
GRAPH_PERMISSIONS = {"public_profile", "publish_checkins", "publish_actions"}

# The Stevens Creek café (facebook-pages.json id 1001; twitter-places.json poi e1a2b3c4d5e6f701).
LAT, LONG = 37.3236, -122.0315
TWITTER_POI = "e1a2b3c4d5e6f701"  # Stevens Creek Coffee House, Cupertino (poi)
TWITTER_NEIGHBORHOOD = "c0ffee0c1c2d3e42"  # Civic Center, Cupertino
TWITTER_CITY = "7d3b5e1f2a9c4c01"  # Cupertino, CA
TWITTER_PARK_AND_RIDE = "e1a2b3c4d5e6f709"  # "Page Mill Road Park & Ride"
GRAPH_PAGE = "1001"  # Stevens Creek Coffee House

GRANULARITIES = ["poi", "neighborhood", "city", "admin", "country"]

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(os.environ.get("WAYPOST_FIXTURES", REPO / "fixtures" / "places"))


def pytest_configure(config):
    if not os.environ.get("WAYPOST_EMULATOR"):
        raise pytest.UsageError(
            "WAYPOST_EMULATOR is not set: run the suite through run.sh WAYPOST_BINARY, "
            "or export WAYPOST_EMULATOR=http://127.0.0.1:PORT of a running `waypost emulator`."
        )


@pytest.fixture(scope="session")
def base_url():
    """http://127.0.0.1:PORT, no trailing slash."""
    return os.environ["WAYPOST_EMULATOR"].rstrip("/")


@pytest.fixture(scope="session")
def host(base_url):
    """127.0.0.1:PORT"""
    return base_url.split("://", 1)[1]


class Control:
    """The emulator's control plane (`/__waypost/`, form-encoded POSTs) and its journal."""

    def __init__(self, base_url):
        self.base = base_url + "/__waypost/"
        self.http = requests.Session()

    def post(self, path, **form):
        response = self.http.post(self.base + path, data=form, timeout=10)
        assert response.status_code == 200, f"control plane {path} {form}: {response.status_code} {response.text}"
        return response.json()

    def reset(self):
        return self.post("reset")

    def journal(self, path=None):
        """Requests since the last reset, oldest first; `path` filters by substring."""
        response = self.http.get(self.base + "journal", params={"path": path} if path else None, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    def last(self, path):
        """The last journal entry whose path contains `path`."""
        entries = self.journal(path)
        assert entries, f"no request to {path} in the journal"
        return entries[-1]

    def geo_enabled(self, enabled, user_id=USER_ID):
        return self.post("twitter/geo_enabled", user_id=str(user_id), enabled="true" if enabled else "false")

    def permission(self, permission, status, user_id=GRAPH_USER_ID):
        return self.post("facebook/permissions", user_id=user_id, permission=permission, status=status)

    def token_state(self, state, access_token=GRAPH_TOKEN):
        return self.post("facebook/tokens", access_token=access_token, state=state)

    def consumer(self, key, secret, access="read-write"):
        return self.post("twitter/consumers", key=key, secret=secret, access=access)

    def clock(self, offset):
        return self.post("clock", offset=str(offset))


@pytest.fixture(scope="session")
def _control(base_url):
    return Control(base_url)


@pytest.fixture(autouse=True)
def reset(_control):
    """Resets the emulator before each test, so no test sees another's posts, windows or clock."""
    _control.reset()
    yield
    _control.reset()


@pytest.fixture
def control(_control):
    return _control


# ---- fixture places (what the emulator serves, read from the same files) ----

@pytest.fixture(scope="session")
def twitter_places():
    with open(FIXTURES / "twitter-places.json", encoding="utf-8") as f:
        return {p["id"]: p for p in json.load(f)["places"]}


@pytest.fixture(scope="session")
def facebook_pages():
    with open(FIXTURES / "facebook-pages.json", encoding="utf-8") as f:
        return {p["id"]: p for p in json.load(f)["data"]}


# ---- helpers shared by the test modules ----

def unique(text):
    """A status text no other test posts (the emulator refuses duplicates per user)."""
    return f"{text} {time.time_ns() % 10**12}"


def assert_place_url(url, place_id):
    """Twitter's place url is absolute: https://api.twitter.com/1.1/geo/id/ID.json."""
    assert isinstance(url, str) and url.startswith(("http://", "https://")), f"place url not absolute: {url!r}"
    assert url.endswith(f"/1.1/geo/id/{place_id}.json"), url


def assert_bounding_box(box):
    """GeoJSON Polygon, [longitude, latitude] positions, one ring."""
    assert box["type"] == "Polygon"
    ring = box["coordinates"][0]
    assert len(ring) >= 4
    for lon, lat in ring:
        assert -180 <= lon <= 180 and -90 <= lat <= 90


def assert_twitter_user_json(user):
    """The fields of a v1.1 user object clients read."""
    assert user["id"] == USER_ID and isinstance(user["id"], int)
    assert user["id_str"] == str(USER_ID)
    assert user["screen_name"] == SCREEN_NAME
    assert isinstance(user["name"], str)
    assert isinstance(user["geo_enabled"], bool)
    assert "created_at" in user


def as_twitter_sent(text):
    """A tweet's text as Twitter answered it: &, < and > as HTML entities, nothing else escaped
    (twittercommunity.com/t/68810: "&lt;script&gt;", quotes as typed; X API v2 the same)."""
    return html.escape(text, quote=False)


def assert_tweet_json(tweet, text=None):
    """A v1.1 tweet as Twitter sent it: numeric id and id_str, created_at, entities, and
    geo/coordinates/place always present (null when absent)."""
    assert isinstance(tweet["id"], int), f"id: {tweet.get('id')!r}"
    assert tweet["id_str"] == str(tweet["id"])
    if text is not None:
        assert tweet["text"] == as_twitter_sent(text)
    assert isinstance(tweet["created_at"], str)
    for key in ("geo", "coordinates", "place"):
        assert key in tweet, f"tweet lacks {key!r} (Twitter sent null)"
    entities = tweet["entities"]
    for key in ("hashtags", "symbols", "user_mentions", "urls"):
        assert isinstance(entities[key], list)
    assert_twitter_user_json(tweet["user"])


def twitter_codes(errors):
    """[code, …] of a Twitter error body's `errors` list."""
    return [e.get("code") for e in errors if isinstance(e, dict)]
