"""X API v2 clients against the emulator's /2/ endpoints: tweepy's Client and TwitterAPI with
api_version='2' (both from PyPI, pinned in requirements.txt).

X's API reference, which the emulator follows:
  POST /2/tweets        https://developer.x.com/en/docs/x-api/tweets/manage-tweets/api-reference/post-tweets
  GET /2/tweets/:id     https://developer.x.com/en/docs/x-api/tweets/lookup/api-reference/get-tweets-id
  DELETE /2/tweets/:id  https://developer.x.com/en/docs/x-api/tweets/manage-tweets/api-reference/delete-tweets-id
  errors                https://developer.x.com/en/support/x-api/error-troubleshooting
  rate limits           https://developer.x.com/en/docs/x-api/rate-limits
POST /2/tweets takes a JSON body whose only location is `geo.place_id` ("You can only add a
location to Tweets if you have geo enabled in your profile settings. If you don't have geo
enabled, you can still add a location parameter in your request body, but it won't get attached
to your Tweet"). A 400 carries an `errors` array beside title/detail/type; other failures are
problem objects with type, title, detail and status.

Pointing tweepy.Client at the emulator: BaseClient.request sends to "https://api.twitter.com"
+ route through self.session; a requests.Session subclass rewrites that prefix to the
emulator's base URL before requests prepares the request and before requests-oauthlib signs it
(OAuth 1.0a user context), so the signed URL is the one sent. With bearer_token and
user_auth=False it sends `Authorization: Bearer …`: the emulator's demo OAuth 2.0 user-context
token. TwitterAPI is pointed as test_twitterapi.py explains (PROTOCOL, DOMAIN, ENDPOINTS).
"""

import importlib

import pytest
from twitter_text import extract_urls_with_indices
import requests
import tweepy
from TwitterAPI import TwitterAPI

from test_tweepy import make_api
from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, SCREEN_NAME, TOKEN, TOKEN_SECRET, TWITTER_POI, USER_ID, as_twitter_sent, unique,
)

BEARER = "waypost-demo-oauth2-user-token"  # the banner's "X bearer token"
PROBLEM_KEYS = {"type", "title", "detail", "status"}


class EmulatorSession(requests.Session):
    """tweepy.Client sends to https://api.twitter.com; send it to the emulator instead."""

    def __init__(self, base_url):
        super().__init__()
        self.base_url = base_url

    def request(self, method, url, *args, **kwargs):
        for prefix in ("https://api.twitter.com", "https://api.x.com"):
            if isinstance(url, str) and url.startswith(prefix):
                url = self.base_url + url[len(prefix):]
        return super().request(method, url, *args, **kwargs)


def make_client(base_url, **kwargs):
    client = tweepy.Client(**kwargs)
    client.session = EmulatorSession(base_url)
    return client


@pytest.fixture
def oauth1(base_url):
    return make_client(
        base_url, consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, access_token=TOKEN,
        access_token_secret=TOKEN_SECRET)


@pytest.fixture
def bearer(base_url):
    return make_client(base_url, bearer_token=BEARER)


# ---- tweepy.Client ----

def test_created_tweet_is_located(base_url):
    # 201 Created with `location: https://api.twitter.com/2/tweets/ID`, as tweepy's recorded
    # create_tweet answer (cassettes/test_client_create_and_delete_tweet.yaml) has it.
    client = make_client(
        base_url, consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, access_token=TOKEN,
        access_token_secret=TOKEN_SECRET, return_type=requests.Response)
    response = client.create_tweet(text=unique("Located"))
    assert response.status_code == 201
    assert response.headers["Location"] == f"{base_url}/2/tweets/{response.json()['data']['id']}"


def test_create_tweet_with_place_and_read_it_back(oauth1, control, twitter_places):
    """create_tweet(text=…, place_id=…) then get_tweet(id, expansions=["geo.place_id"],
    place_fields=[…]): the place comes back in includes.places, and no coordinates anywhere."""
    text = unique("Coffee & cake <3 via v2")
    created = oauth1.create_tweet(text=text, place_id=TWITTER_POI)
    # X, like Twitter before it, answers &, < and > as HTML entities
    # (kbravh.dev/html-entities-twitter-api-v2).
    assert created.data["text"] == as_twitter_sent(text)
    tweet_id = created.data["id"]
    assert isinstance(tweet_id, str) and tweet_id.isdigit()
    assert created.data["edit_history_tweet_ids"] == [tweet_id]

    body = control.last("/2/tweets")
    assert body["method"] == "POST" and body["status"] == 201
    assert body["headers"]["content-type"].startswith("application/json")
    assert body["headers"]["authorization"].startswith("OAuth ")
    assert "REDACTED" in body["headers"]["authorization"]

    fields = ["contained_within", "country", "country_code", "full_name", "geo", "id", "name", "place_type"]
    got = oauth1.get_tweet(tweet_id, expansions=["geo.place_id"], place_fields=fields, user_auth=True)
    assert isinstance(got.data, tweepy.Tweet)
    assert got.data.id == int(tweet_id) and got.data.text == as_twitter_sent(text)
    assert got.data.geo == {"place_id": TWITTER_POI}
    places = got.includes["places"]
    assert len(places) == 1 and isinstance(places[0], tweepy.Place)
    place, fixture = places[0], twitter_places[TWITTER_POI]
    assert place.id == TWITTER_POI
    assert place.full_name == fixture["full_name"] and place.name == fixture["name"]
    assert place.place_type == "poi" and place.country_code == fixture["country_code"]
    assert place.geo["type"] == "Feature" and len(place.geo["bbox"]) == 4
    assert "coordinates" not in got.data.geo


def test_v2_tweet_is_the_v1_1_tweet(oauth1, host):
    """One account, one timeline: v1.1 statuses/show reads the v2 tweet with its place and no point."""
    created = oauth1.create_tweet(text=unique("both APIs"), place_id=TWITTER_POI)
    api = make_api(host)  # tweepy.API (v1.1), pointed as test_tweepy.py explains
    status = api.get_status(int(created.data["id"]))
    assert status.place.id == TWITTER_POI
    assert status.coordinates is None and status.geo is None


def test_bearer_token_user_context(bearer):
    """OAuth 2.0 user context: the demo bearer token posts and reads as @waypost_demo."""
    text = unique("bearer")
    created = bearer.create_tweet(text=text, place_id=TWITTER_POI, user_auth=False)
    got = bearer.get_tweet(created.data["id"], expansions=["author_id", "geo.place_id"],
                           user_fields=["protected"])
    assert got.data.author_id == USER_ID
    user = got.includes["users"][0]
    assert user.username == SCREEN_NAME and user.protected is False
    me = bearer.get_me(user_auth=False, user_fields=["protected"])
    assert me.data.id == USER_ID and me.data.protected is False


def test_bearer_token_refused_with_a_problem(base_url):
    client = make_client(base_url, bearer_token="not-a-token")
    with pytest.raises(tweepy.Unauthorized) as raised:
        client.create_tweet(text=unique("nope"), user_auth=False)
    problem = raised.value.response.json()
    assert PROBLEM_KEYS <= problem.keys() and problem["status"] == 401


def test_geo_disabled_drops_the_place(oauth1, control):
    """X: with geo off the place id may be sent, but it is not attached."""
    control.geo_enabled(False)
    created = oauth1.create_tweet(text=unique("geo off"), place_id=TWITTER_POI)
    got = oauth1.get_tweet(created.data["id"], expansions=["geo.place_id"], user_auth=True)
    assert got.data.geo is None
    assert got.includes == {}


def test_protected_account_in_the_user_object(oauth1, control):
    control.post("twitter/protected", user_id=str(USER_ID), protected="true")
    me = oauth1.get_me(user_fields=["protected"])
    assert me.data.protected is True


def test_duplicate_is_a_403_problem(oauth1):
    text = unique("twice")
    oauth1.create_tweet(text=text)
    with pytest.raises(tweepy.Forbidden) as raised:
        oauth1.create_tweet(text=text)
    problem = raised.value.response.json()
    assert PROBLEM_KEYS <= problem.keys() and problem["status"] == 403
    assert "duplicate content" in problem["detail"]


def test_validation_errors_array(oauth1):
    """A bad place.fields value: 400 with errors[{parameters, message}], title, detail, type."""
    created = oauth1.create_tweet(text=unique("fields"))
    with pytest.raises(tweepy.BadRequest) as raised:
        oauth1.get_tweet(created.data["id"], place_fields=["latitude"], user_auth=True)
    body = raised.value.response.json()
    assert body["title"] == "Invalid Request"
    assert body["type"] == "https://api.twitter.com/2/problems/invalid-request"
    assert body["errors"][0]["parameters"] == {"place.fields": ["latitude"]}
    assert "[latitude]" in body["errors"][0]["message"]


def test_rate_limit_headers(oauth1):
    oauth1.return_type = requests.Response
    response = oauth1.create_tweet(text=unique("headers"))
    assert response.status_code == 201
    assert response.headers["x-rate-limit-limit"] == "200"
    assert int(response.headers["x-rate-limit-remaining"]) == 199
    assert int(response.headers["x-rate-limit-reset"]) > 0


def test_delete_then_not_found(oauth1):
    created = oauth1.create_tweet(text=unique("delete me"))
    deleted = oauth1.delete_tweet(created.data["id"])
    assert deleted.data == {"deleted": True}
    got = oauth1.get_tweet(created.data["id"], user_auth=True)
    assert got.data is None
    assert got.errors[0]["title"] == "Not Found Error"
    assert got.errors[0]["type"] == "https://api.twitter.com/2/problems/resource-not-found"


def test_reply(oauth1):
    first = oauth1.create_tweet(text=unique("first"))
    reply = oauth1.create_tweet(text=unique("reply"), in_reply_to_tweet_id=first.data["id"])
    got = oauth1.get_tweet(reply.data["id"], tweet_fields=["referenced_tweets", "conversation_id"], user_auth=True)
    assert got.data.referenced_tweets[0].id == int(first.data["id"])
    assert got.data.conversation_id == int(first.data["id"])


def test_entities_when_asked(oauth1):
    # X's Tweet object: `entities` with `urls` (start, end, the t.co url, expanded_url,
    # display_url), `hashtags` (tag) and `mentions` (username, id) when tweet.fields asks for them;
    # accepted and never returned before (a black-box hunt). The links are twitter-text's.
    text = unique("Coffee #espresso with @waypost_demo: https://example.com/menu)! and")
    created = oauth1.create_tweet(text=text)
    got = oauth1.get_tweet(created.data["id"], tweet_fields=["entities"], user_auth=True)
    entities = got.data.entities
    assert [h["tag"] for h in entities["hashtags"]] == ["espresso"]
    assert [(m["username"], m["id"]) for m in entities["mentions"]] == [("waypost_demo", "1001")]
    assert [u["expanded_url"] for u in entities["urls"]] == [u["url"] for u in extract_urls_with_indices(text)]
    shown = got.data.text
    for kind in ("hashtags", "mentions", "urls"):
        for e in entities[kind]:
            piece = shown[e["start"]:e["end"]]
            assert piece == {"hashtags": "#" + e.get("tag", ""), "mentions": "@" + e.get("username", ""),
                             "urls": e.get("url")}[kind]
    plain = oauth1.get_tweet(created.data["id"], user_auth=True)
    assert plain.data.entities is None
    bare = oauth1.create_tweet(text=unique("nothing to link"))
    assert oauth1.get_tweet(bare.data["id"], tweet_fields=["entities"], user_auth=True).data.entities is None


# ---- TwitterAPI (geduldig's) with api_version='2' ----

twitterapi_module = importlib.import_module("TwitterAPI.TwitterAPI")


@pytest.fixture
def twitterapi_v2(host, monkeypatch):
    subdomain, _, domain = host.partition(".")
    endpoints = {
        resource: (entry[0], subdomain) if isinstance(entry, tuple) and entry[1] == "api" else entry
        for resource, entry in twitterapi_module.ENDPOINTS.items()
    }
    monkeypatch.setattr(twitterapi_module, "PROTOCOL", "http")
    monkeypatch.setattr(twitterapi_module, "DOMAIN", domain)
    monkeypatch.setattr(twitterapi_module, "ENDPOINTS", endpoints)
    api = TwitterAPI(CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET, api_version="2")
    api.REST_TIMEOUT = 30
    api.CONNECTION_TIMEOUT = 30
    return api


def test_twitterapi_v2_posts_and_reads_back_a_place(twitterapi_v2, twitter_places):
    text = unique("TwitterAPI v2")
    created = twitterapi_v2.request("tweets", method_override="POST",
                                    params={"text": text, "geo": {"place_id": TWITTER_POI}})
    assert created.status_code == 201, created.text
    tweet_id = created.json()["data"]["id"]
    got = twitterapi_v2.request(f"tweets/:{tweet_id}",
                                params={"expansions": "geo.place_id", "place.fields": "name,place_type"})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["data"]["geo"] == {"place_id": TWITTER_POI}
    place = body["includes"]["places"][0]
    assert place["id"] == TWITTER_POI and place["place_type"] == "poi"
    assert place["name"] == twitter_places[TWITTER_POI]["name"]
    deleted = twitterapi_v2.request(f"tweets/:{tweet_id}", method_override="DELETE")
    assert deleted.json() == {"data": {"deleted": True}}
