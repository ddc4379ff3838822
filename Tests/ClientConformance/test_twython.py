"""twython 3.9.1 against the emulator, through Twython's own endpoint methods.

Pointing it at the emulator: Twython builds every URL as twython.api_url % version + '/' +
endpoint + '.json', api_url being 'https://api.twitter.com/%s'; we set the instance attribute
api_url = 'http://127.0.0.1:PORT/%s' after construction. (Twython.request refuses an http://
*endpoint* passed in full, but not an http api_url.)

What it sends (verified in the journal below): booleans as 'true'/'false'
(helpers._transparent_params), GET parameters in the query (spaces as '+'), POST parameters as
a form body. Twython returns plain dicts. Errors: status > 304 raises TwythonError with
error_code = the HTTP status (not Twitter's code) and the message of errors[0]; 401 or a
'Bad Authentication data' message → TwythonAuthError; 429 → TwythonRateLimitError with
retry_after = the X-Rate-Limit-Reset header. Headers of the last call:
get_lastfunction_header(name). Twitter's code is read from the last call's body
(twython keeps it in _last_call['content']).
"""

import json
import time

import pytest
from twython import Twython, TwythonAuthError, TwythonError, TwythonRateLimitError

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET, TWITTER_CITY,
    TWITTER_NEIGHBORHOOD, TWITTER_PARK_AND_RIDE, TWITTER_POI, USER_ID, assert_bounding_box,
    as_twitter_sent, assert_place_url, assert_tweet_json, assert_twitter_user_json, unique,
)


def make_client(base_url, consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, token=TOKEN,
                token_secret=TOKEN_SECRET):
    client = Twython(consumer_key, consumer_secret, token, token_secret, client_args={"timeout": 30})
    client.api_url = base_url + "/%s"
    return client


@pytest.fixture
def tw(base_url):
    return make_client(base_url)


def twitter_code(client):
    """Twitter's error code in the body of the client's last call."""
    body = json.loads(client._last_call["content"])
    return [e["code"] for e in body["errors"]]


def place_ids(answer):
    return [p["id"] for p in answer["result"]["places"]]


# ---- users ----

def test_verify_credentials(tw):
    user = tw.verify_credentials()
    assert_twitter_user_json(user)
    assert user["geo_enabled"] is True


def test_show_user(tw):
    assert_twitter_user_json(tw.show_user(screen_name=SCREEN_NAME))
    assert_twitter_user_json(tw.show_user(user_id=USER_ID))


# ---- geo ----

def test_reverse_geocode_poi(tw, twitter_places):
    answer = tw.reverse_geocode(lat=LAT, long=LONG, granularity="poi")
    assert TWITTER_POI in place_ids(answer)
    for place in answer["result"]["places"]:
        fixture = twitter_places[place["id"]]
        assert place["full_name"] == fixture["full_name"]
        assert place["place_type"] == fixture["place_type"]
        assert_place_url(place["url"], place["id"])
        assert_bounding_box(place["bounding_box"])
        for parent in place.get("contained_within", []):
            assert_place_url(parent["url"], parent["id"])
    assert tw.get_lastfunction_header("x-rate-limit-limit") == "15"
    assert tw.get_lastfunction_header("x-rate-limit-remaining") == "14"
    assert int(tw.get_lastfunction_header("x-rate-limit-reset")) > time.time()


def test_reverse_geocode_default_granularity_is_neighborhood(tw):
    answer = tw.reverse_geocode(lat=LAT, long=LONG)
    assert "poi" not in {p["place_type"] for p in answer["result"]["places"]}
    assert TWITTER_NEIGHBORHOOD in place_ids(answer)


def test_search_geo_with_granularity(tw):
    answer = tw.search_geo(lat=LAT, long=LONG, granularity="city")
    assert {p["place_type"] for p in answer["result"]["places"]} <= {"city", "admin", "country"}
    assert TWITTER_CITY in place_ids(answer)


def test_search_geo_without_granularity(tw):
    assert TWITTER_NEIGHBORHOOD in place_ids(tw.search_geo(lat=LAT, long=LONG))


def test_search_geo_query_with_ampersand_and_spaces(tw, control):
    # Sent as query=Page+Mill+Road+Park+%26+Ride.
    answer = tw.search_geo(query="Page Mill Road Park & Ride", granularity="poi")
    assert place_ids(answer) == [TWITTER_PARK_AND_RIDE]
    assert control.last("geo/search")["parameters"]["query"] == "Page Mill Road Park & Ride"


def test_similar_places(tw):
    # Twitter's documented example answered with the neighborhood around the point (granularity
    # neighborhood in query.params); a name that is that neighborhood's must find it either way.
    answer = tw.get_similar_places(lat=LAT, long=LONG, name="Civic Center")
    assert TWITTER_NEIGHBORHOOD in place_ids(answer)
    assert isinstance(answer["result"]["token"], str) and answer["result"]["token"]


def test_get_geo_info(tw):
    place = tw.get_geo_info(place_id=TWITTER_POI)
    assert place["id"] == TWITTER_POI
    assert_place_url(place["url"], TWITTER_POI)
    assert_bounding_box(place["bounding_box"])


def test_get_geo_info_unknown_is_404(tw):
    with pytest.raises(TwythonError) as raised:
        tw.get_geo_info(place_id="0000000000000000")
    assert raised.value.error_code == 404
    assert twitter_code(tw) == [34]


# ---- statuses ----

def test_update_status_without_location(tw):
    text = unique("Plain status")
    tweet = tw.update_status(status=text)
    assert_tweet_json(tweet, text)
    assert tweet["geo"] is None and tweet["coordinates"] is None and tweet["place"] is None


def test_update_status_non_ascii_form_body(tw):
    text = unique("Café ☕ 100% + more & less = !*'();:@$,/?#[]")
    assert tw.update_status(status=text)["text"] == as_twitter_sent(text)


def test_update_status_display_coordinates_true(tw, control):
    tweet = tw.update_status(status=unique("At the café"), lat=LAT, long=LONG, display_coordinates=True)
    assert control.last("statuses/update")["parameters"]["display_coordinates"] == "true"
    assert tweet["coordinates"] == {"type": "Point", "coordinates": [LONG, LAT]}
    assert tweet["geo"] == {"type": "Point", "coordinates": [LAT, LONG]}


def test_update_status_display_coordinates_false(tw, control):
    tweet = tw.update_status(status=unique("Private"), lat=LAT, long=LONG, display_coordinates=False)
    assert control.last("statuses/update")["parameters"]["display_coordinates"] == "false"
    assert tweet["coordinates"] is None and tweet["geo"] is None
    latest = tw.get_user_timeline()[0]
    assert latest["id"] == tweet["id"]
    assert latest["coordinates"] is None and latest["geo"] is None


def test_update_status_with_place_id(tw):
    tweet = tw.update_status(status=unique("In Cupertino"), place_id=TWITTER_CITY)
    assert tweet["place"]["id"] == TWITTER_CITY
    assert tweet["place"]["full_name"] == "Cupertino, CA"
    assert_place_url(tweet["place"]["url"], TWITTER_CITY)
    assert_bounding_box(tweet["place"]["bounding_box"])


def test_geo_enabled_off_drops_location_silently(tw, control):
    control.geo_enabled(False)
    tweet = tw.update_status(status=unique("No geo"), lat=LAT, long=LONG, place_id=TWITTER_CITY,
                             display_coordinates=True)
    assert tweet["geo"] is None and tweet["coordinates"] is None and tweet["place"] is None


def test_user_timeline_show_and_destroy(tw):
    first = tw.update_status(status=unique("first"))
    second = tw.update_status(status=unique("second"))
    timeline = tw.get_user_timeline(screen_name=SCREEN_NAME)
    assert [t["id"] for t in timeline[:2]] == [second["id"], first["id"]]
    shown = tw.show_status(id=first["id"])  # GET statuses/show/ID.json?id=ID
    assert shown["id_str"] == first["id_str"]
    destroyed = tw.destroy_status(id=first["id"])  # POST statuses/destroy/ID.json
    assert destroyed["id"] == first["id"]
    with pytest.raises(TwythonError) as raised:
        tw.show_status(id=first["id"])
    assert raised.value.error_code == 404
    assert twitter_code(tw) == [144]


def test_update_status_without_status_is_170(tw):
    with pytest.raises(TwythonError) as raised:
        tw.update_status(lat=LAT, long=LONG)
    assert raised.value.error_code in (400, 403)
    assert twitter_code(tw) == [170]


def test_user_timeline_trim_user(tw, control):
    tw.update_status(status=unique("Trimmed"))
    trimmed = tw.get_user_timeline(trim_user=True)[0]
    assert control.last("user_timeline")["parameters"]["trim_user"] == "true"
    assert trimmed["user"] == {"id": USER_ID, "id_str": str(USER_ID)}
    full = tw.get_user_timeline(trim_user=False)[0]
    assert full["user"]["screen_name"] == SCREEN_NAME


def test_duplicate_status_is_403_187(tw):
    text = unique("Twice")
    tw.update_status(status=text)
    with pytest.raises(TwythonError) as raised:
        tw.update_status(status=text)
    assert raised.value.error_code == 403
    assert twitter_code(tw) == [187]
    assert "Status is a duplicate." in str(raised.value)


# ---- authentication errors ----

def test_bad_signature_is_auth_error_32(base_url):
    client = make_client(base_url, consumer_secret="not-the-secret")
    with pytest.raises(TwythonAuthError) as raised:
        client.verify_credentials()
    assert raised.value.error_code == 401
    assert twitter_code(client) == [32]
    assert "Could not authenticate you." in str(raised.value)


def test_unknown_token_is_auth_error_89(base_url):
    client = make_client(base_url, token="1001-unknown-token")
    with pytest.raises(TwythonAuthError) as raised:
        client.verify_credentials()
    assert raised.value.error_code == 401
    assert twitter_code(client) == [89]


def test_timestamp_out_of_bounds_is_auth_error_135(tw, control):
    control.clock(3600)
    with pytest.raises(TwythonAuthError) as raised:
        tw.verify_credentials()
    assert raised.value.error_code == 401
    assert twitter_code(tw) == [135]


def test_read_only_application_is_403_261(base_url, control):
    control.consumer("read-only-consumer", "read-only-secret", access="read")
    client = make_client(base_url, consumer_key="read-only-consumer", consumer_secret="read-only-secret")
    with pytest.raises(TwythonError) as raised:
        client.update_status(status=unique("Not allowed"))
    assert raised.value.error_code == 403
    assert twitter_code(client) == [261]


# ---- rate limits ----

def test_geo_rate_limit_is_rate_limit_error_88(tw):
    for _ in range(15):
        tw.get_similar_places(lat=LAT, long=LONG, name="Stevens Creek")
    with pytest.raises(TwythonRateLimitError) as raised:
        tw.get_similar_places(lat=LAT, long=LONG, name="Stevens Creek")
    assert raised.value.error_code == 429
    assert twitter_code(tw) == [88]
    assert tw.get_lastfunction_header("x-rate-limit-remaining") == "0"
    assert tw.get_lastfunction_header("x-rate-limit-limit") == "15"
    reset = tw.get_lastfunction_header("x-rate-limit-reset")
    assert raised.value.retry_after == reset  # twython reads X-Rate-Limit-Reset
    assert time.time() < int(reset) <= time.time() + 901


def test_rate_limit_headers_on_get_endpoints(tw):
    # Twitter's published per-user limits (15-minute windows), sent on every GET.
    posted = tw.update_status(status=unique("Limits"))
    calls = [
        (tw.verify_credentials, {}, "75"),
        (tw.show_user, {"screen_name": SCREEN_NAME}, "900"),
        (tw.get_user_timeline, {}, "900"),
        (tw.show_status, {"id": posted["id"]}, "900"),
        (tw.get_geo_info, {"place_id": TWITTER_POI}, "75"),
        (tw.get_application_rate_limit_status, {}, "180"),
    ]
    for call, params, limit in calls:
        call(**params)
        assert tw.get_lastfunction_header("x-rate-limit-limit") == limit, call.__name__
        assert int(tw.get_lastfunction_header("x-rate-limit-remaining")) == int(limit) - 1, call.__name__
        assert int(tw.get_lastfunction_header("x-rate-limit-reset")) > time.time(), call.__name__


def test_application_rate_limit_status(tw):
    tw.search_geo(lat=LAT, long=LONG)
    status = tw.get_application_rate_limit_status(resources="geo")
    geo = status["resources"]["geo"]
    assert geo["/geo/search"] == {"limit": 15, "remaining": 14, "reset": geo["/geo/search"]["reset"]}
    assert isinstance(geo["/geo/search"]["reset"], int)
