"""python-twitter 3.5 (twitter.Api) against the emulator, through its own methods and models.

Pointing it at the emulator: twitter.Api(base_url='http://127.0.0.1:PORT/1.1') — a documented
constructor argument; cache=None so nothing is written to disk.

What it sends (verified in the journal below): GET parameters via urllib's urlencode (spaces as
'+', booleans as 'True'/'False', plus tweet_mode=compat); POST parameters as a form body via
requests (booleans as 'True'/'False', None dropped, exclude_reply_user_ids sent empty).
PostUpdate ALWAYS sends display_coordinates — 'False' unless the caller passes True.
With sleep_on_rate_limit=True it first calls GET application/rate_limit_status.json and reads
resources[family][endpoint] {limit, remaining, reset}; after every call it reads the
x-rate-limit-* headers. It raises twitter.error.TwitterError(body['errors']) whenever the body
has "errors" (it never looks at the HTTP status).

python-twitter has no geo methods; the geo tests call its internal _RequestUrl /
_ParseAndCheckTwitter, which every Api method is built on, so header tracking is still the
library's.
"""

import time

import pytest
import twitter

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET, TWITTER_CITY,
    TWITTER_POI, USER_ID, as_twitter_sent, assert_place_url, assert_tweet_json, unique,
)


def make_api(base_url, consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, token=TOKEN,
             token_secret=TOKEN_SECRET, **kwargs):
    return twitter.Api(consumer_key=consumer_key, consumer_secret=consumer_secret,
                       access_token_key=token, access_token_secret=token_secret,
                       base_url=base_url + "/1.1", cache=None, timeout=30, **kwargs)


@pytest.fixture
def api(base_url):
    return make_api(base_url)


def codes(error):
    """Twitter codes of a TwitterError raised from a body's 'errors' list."""
    message = error.message
    assert isinstance(message, list), f"TwitterError without Twitter's errors list: {message!r}"
    return [e.get("code") for e in message]


def assert_status(status, text=None):
    assert isinstance(status, twitter.Status)
    assert isinstance(status.id, int), f"Status.id: {status.id!r}"
    assert status.id_str == str(status.id)
    if text is not None:
        assert status.text == as_twitter_sent(text)
    assert abs(status.created_at_in_seconds - time.time()) < 300  # parsedate(created_at)
    assert isinstance(status.user, twitter.User)
    assert status.user.screen_name == SCREEN_NAME
    assert status.user.id == USER_ID
    assert_tweet_json(status._json, text)  # the JSON the model was built from


# ---- users ----

def test_verify_credentials(api):
    user = api.VerifyCredentials()
    assert isinstance(user, twitter.User)
    assert user.id == USER_ID
    assert user.screen_name == SCREEN_NAME
    assert user.geo_enabled is True
    assert isinstance(user.name, str)


def test_get_user_users_show(api):
    assert api.GetUser(screen_name=SCREEN_NAME).id == USER_ID
    assert api.GetUser(user_id=USER_ID).screen_name == SCREEN_NAME


def test_sleep_on_rate_limit_reads_rate_limit_status(base_url, control):
    api = make_api(base_url, sleep_on_rate_limit=True)
    user = api.VerifyCredentials()
    assert user.screen_name == SCREEN_NAME
    paths = [e["path"] for e in control.journal("/1.1/")]
    assert paths[:2] == ["/1.1/application/rate_limit_status.json", "/1.1/account/verify_credentials.json"]
    geo = api.rate_limit.resources["geo"]
    assert geo["/geo/reverse_geocode"]["limit"] == 15
    assert geo["/geo/reverse_geocode"]["remaining"] == 15


# ---- statuses ----

def test_post_update_without_location(api):
    text = unique("Plain status")
    status = api.PostUpdate(text)
    assert_status(status, text)
    assert status._json["coordinates"] is None and status._json["geo"] is None
    assert status._json["place"] is None


def test_post_update_parses_entities(api):
    status = api.PostUpdate(unique("Coffee #waypost with @waypost_demo"))
    assert [h.text for h in status.hashtags] == ["waypost"]
    assert [u.screen_name for u in status.user_mentions] == [SCREEN_NAME]


def test_post_update_display_coordinates_true(api, control):
    text = unique("At the café")
    status = api.PostUpdate(text, latitude=LAT, longitude=LONG, display_coordinates=True)
    assert_status(status, text)
    assert status.coordinates == {"type": "Point", "coordinates": [LONG, LAT]}
    assert status.geo == {"type": "Point", "coordinates": [LAT, LONG]}
    sent = control.last("statuses/update")["parameters"]
    assert sent["display_coordinates"] == "True"
    assert sent["lat"] == str(LAT) and sent["long"] == str(LONG)


def test_post_update_default_display_coordinates_false_hides_coordinates(api, control):
    # python-twitter's default: display_coordinates=False, sent as 'False' in the form body.
    status = api.PostUpdate(unique("Somewhere private"), latitude=LAT, longitude=LONG)
    sent = control.last("statuses/update")["parameters"]
    assert sent["display_coordinates"] == "False"
    assert sent["exclude_reply_user_ids"] == ""
    assert status.coordinates is None, f"coordinates leaked: {status.coordinates}"
    assert status.geo is None, f"geo leaked: {status.geo}"
    latest = api.GetUserTimeline(screen_name=SCREEN_NAME)[0]
    assert latest.id == status.id
    assert latest.coordinates is None and latest.geo is None


def test_post_update_with_place_id(api):
    status = api.PostUpdate(unique("In Cupertino"), place_id=TWITTER_CITY)
    place = status.place  # python-twitter keeps the place as the JSON dict
    assert place["id"] == TWITTER_CITY
    assert place["full_name"] == "Cupertino, CA"
    assert_place_url(place["url"], TWITTER_CITY)
    assert place["bounding_box"]["type"] == "Polygon"


def test_geo_enabled_off_drops_location_silently(api, control):
    control.geo_enabled(False)
    status = api.PostUpdate(unique("No geo"), latitude=LAT, longitude=LONG, place_id=TWITTER_CITY,
                            display_coordinates=True)
    assert status.coordinates is None and status.geo is None and status.place is None
    assert status.user.geo_enabled is False


def test_get_user_timeline(api):
    first = api.PostUpdate(unique("first"))
    second = api.PostUpdate(unique("second"))
    timeline = api.GetUserTimeline(screen_name=SCREEN_NAME)
    assert [s.id for s in timeline[:2]] == [second.id, first.id]
    for s in timeline:
        assert_status(s)
    assert len(api.GetUserTimeline(user_id=USER_ID, count=1)) == 1


def test_get_user_timeline_since_id_and_max_id(api, control):
    older = api.PostUpdate(unique("older"))
    newer = api.PostUpdate(unique("newer"))
    assert [s.id for s in api.GetUserTimeline(since_id=older.id)] == [newer.id]
    assert [s.id for s in api.GetUserTimeline(max_id=older.id)] == [older.id]
    sent = control.last("user_timeline")["parameters"]
    assert sent["trim_user"] == "False" and sent["include_rts"] == "True"  # python-twitter's spelling


def test_get_status_statuses_show(api):
    posted = api.PostUpdate(unique("Show me"))
    shown = api.GetStatus(posted.id)  # GET statuses/show.json?id=…
    assert_status(shown, posted.text)
    assert shown.id == posted.id


def test_destroy_status(api):
    posted = api.PostUpdate(unique("Delete me"))
    destroyed = api.DestroyStatus(posted.id)  # POST statuses/destroy/ID.json, form id=…
    assert destroyed.id == posted.id
    with pytest.raises(twitter.error.TwitterError) as raised:
        api.GetStatus(posted.id)
    assert codes(raised.value) == [144]


def test_duplicate_status_187(api):
    text = unique("Twice")
    api.PostUpdate(text)
    with pytest.raises(twitter.error.TwitterError) as raised:
        api.PostUpdate(text)
    assert codes(raised.value) == [187]


# ---- authentication errors ----

def test_bad_signature_32(base_url):
    with pytest.raises(twitter.error.TwitterError) as raised:
        make_api(base_url, token_secret="not-the-secret").VerifyCredentials()
    assert codes(raised.value) == [32]


def test_unknown_token_89(base_url):
    with pytest.raises(twitter.error.TwitterError) as raised:
        make_api(base_url, token="1001-unknown-token").VerifyCredentials()
    assert codes(raised.value) == [89]


def test_timestamp_out_of_bounds_135(api, control):
    control.clock(3600)
    with pytest.raises(twitter.error.TwitterError) as raised:
        api.VerifyCredentials()
    assert codes(raised.value) == [135]


def test_read_only_application_261(base_url, control):
    control.consumer("read-only-consumer", "read-only-secret", access="read")
    api = make_api(base_url, consumer_key="read-only-consumer", consumer_secret="read-only-secret")
    with pytest.raises(twitter.error.TwitterError) as raised:
        api.PostUpdate(unique("Not allowed"))
    assert codes(raised.value) == [261]


# ---- geo, through the library's request path ----

def geo_get(api, endpoint, **params):
    url = f"{api.base_url}/geo/{endpoint}.json"
    response = api._RequestUrl(url, "GET", data=params)
    return url, response, api._ParseAndCheckTwitter(response.content.decode("utf-8"))


def test_geo_reverse_geocode_and_rate_limit_headers(api):
    url, response, data = geo_get(api, "reverse_geocode", lat=LAT, long=LONG, granularity="poi")
    assert TWITTER_POI in [p["id"] for p in data["result"]["places"]]
    limit = api.rate_limit.get_limit(url)  # from the x-rate-limit-* headers
    assert (limit.limit, limit.remaining) == (15, 14)
    assert limit.reset > time.time()


def test_geo_search_query_with_space(api):
    # urlencode: 'query=Stevens+Creek'.
    _, _, data = geo_get(api, "search", query="Stevens Creek", granularity="poi")
    assert TWITTER_POI in [p["id"] for p in data["result"]["places"]]


def test_geo_rate_limit_88(api):
    for _ in range(15):
        geo_get(api, "reverse_geocode", lat=LAT, long=LONG)
    with pytest.raises(twitter.error.TwitterError) as raised:
        geo_get(api, "reverse_geocode", lat=LAT, long=LONG)
    assert codes(raised.value) == [88]
    limit = api.rate_limit.get_limit(f"{api.base_url}/geo/reverse_geocode.json")
    assert (limit.limit, limit.remaining) == (15, 0)
    assert time.time() < limit.reset <= time.time() + 901
