"""python-twitter-v2 0.9.3 (PyPI `python-twitter-v2`, module `pytwitter`): a client written for
X API v2 only, against the emulator's /2/ endpoints with the demo OAuth 2.0 user-context bearer
token (`Api(bearer_token=…)` sends `Authorization: Bearer …` through Authlib's OAuth2Auth).

Pointing it at the emulator: every v2 URL is f"{self.BASE_URL_V2}/…" (pytwitter/api.py), so the
instance's BASE_URL_V2 is set to the emulator's /2 root. Nothing else is touched.

(Its OAuth 1.0a constructor derives the user id by splitting the access token at its single
'-', which the emulator's demo token `1001-waypost-demo-token` has three of: the bearer token is
the way in.)

X's API reference for the calls: POST /2/tweets (body `{"text", "geo": {"place_id"}}`) and
GET /2/tweets/:id with `expansions=geo.place_id` and `place.fields`:
  https://developer.x.com/en/docs/x-api/tweets/manage-tweets/api-reference/post-tweets
  https://developer.x.com/en/docs/x-api/tweets/lookup/api-reference/get-tweets-id
"""

import pytest
import pytwitter

from conftest import SCREEN_NAME, TWITTER_POI, USER_ID, unique

BEARER = "waypost-demo-oauth2-user-token"


@pytest.fixture
def api(base_url):
    client = pytwitter.Api(bearer_token=BEARER, timeout=30)
    client.BASE_URL_V2 = base_url + "/2"
    return client


def test_create_tweet_with_place_and_read_it_back(api, control, twitter_places):
    text = unique("pytwitter v2")
    created = api.create_tweet(text=text, geo_place_id=TWITTER_POI)
    assert created.text == text and created.id.isdigit()

    sent = control.last("/2/tweets")
    assert sent["status"] == 201
    assert sent["headers"]["authorization"] == "REDACTED"  # the bearer token never reaches the journal

    got = api.get_tweet(created.id, expansions=["geo.place_id", "author_id"],
                        place_fields=["name", "full_name", "place_type", "country_code"],
                        user_fields=["protected"])
    assert got.data.id == created.id and got.data.text == text
    assert got.data.geo.place_id == TWITTER_POI
    place = got.includes.places[0]
    fixture = twitter_places[TWITTER_POI]
    assert place.id == TWITTER_POI and place.name == fixture["name"] and place.full_name == fixture["full_name"]
    assert place.place_type == "poi" and place.country_code == fixture["country_code"]
    user = got.includes.users[0]
    assert user.id == str(USER_ID) and user.username == SCREEN_NAME and user.protected is False


def test_delete_tweet(api):
    created = api.create_tweet(text=unique("pytwitter delete"))
    assert api.delete_tweet(created.id) == {"data": {"deleted": True}}


def test_duplicate_raises_with_the_problem(api):
    text = unique("pytwitter twice")
    api.create_tweet(text=text)
    with pytest.raises(pytwitter.PyTwitterError) as raised:
        api.create_tweet(text=text)
    problem = raised.value.message
    assert problem["status"] == 403 and problem["title"] == "Forbidden"
    assert "duplicate content" in problem["detail"]
