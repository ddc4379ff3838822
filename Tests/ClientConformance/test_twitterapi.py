"""TwitterAPI 2.8.2 (geduldig's; TwitterAPI.TwitterAPI) against the emulator's Twitter v1.1 API.

Pointing it at the emulator: TwitterAPI._prepare_url builds every v1.1 URL as
'%s://%s.%s/%s/%s.json' % (PROTOCOL, subdomain, DOMAIN, version, resource), PROTOCOL and
DOMAIN being the constants of TwitterAPI/constants.py ('https', 'twitter.com') that
TwitterAPI/TwitterAPI.py star-imports into its own namespace, and subdomain coming from the
ENDPOINTS table ('api' for every REST resource). There is no base-URL argument, and
'api.127.0.0.1' does not resolve, so each test monkeypatches, in the module TwitterAPI.TwitterAPI
(the names its code reads; monkeypatch restores them after the test):
    PROTOCOL  = 'http'
    DOMAIN    = '0.0.1:PORT'                 (the emulator's host after its first dot)
    ENDPOINTS = a copy whose 'api' subdomain is '127' (the host before that dot)
so '%s://%s.%s' becomes 'http://127.0.0.1:PORT'. The library's own code (URL building, OAuth1
signing by requests-oauthlib, sending, TwitterResponse) runs unchanged.

What it sends (checked in the journal): GET parameters in the query, POST parameters (v1.1) as a
form body; ':ID' in a resource ('statuses/show/:123') becomes a path segment. Values go
through requests unchanged, so we pass booleans as the strings 'true'/'false' as Twitter
documents them. request() returns a TwitterResponse whatever the status: .status_code,
.json(), .headers, .get_quota(); iterating it (get_iterator) raises TwitterRequestError for a
status other than 200. TwitterPager pages statuses/user_timeline by max_id = last id - 1 until
an empty page.
"""

import datetime
import importlib
import time

import pytest
from TwitterAPI import TwitterAPI, TwitterPager, TwitterRequestError

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET, TWITTER_CITY,
    TWITTER_NEIGHBORHOOD, TWITTER_PARK_AND_RIDE, TWITTER_POI, USER_ID, assert_bounding_box,
    as_twitter_sent, assert_place_url, assert_tweet_json, assert_twitter_user_json, twitter_codes, unique,
)

# The package's __init__ rebinds TwitterAPI.TwitterAPI to the class, so fetch the module itself.
twitterapi_module = importlib.import_module("TwitterAPI.TwitterAPI")


@pytest.fixture(autouse=True)
def twitter_url(host, monkeypatch):
    subdomain, dot, domain = host.partition(".")
    assert dot, f"WAYPOST_EMULATOR's host {host!r} needs a dot to be split into subdomain.DOMAIN"
    endpoints = {
        resource: (entry[0], subdomain) if isinstance(entry, tuple) and entry[1] == "api" else entry
        for resource, entry in twitterapi_module.ENDPOINTS.items()
    }
    monkeypatch.setattr(twitterapi_module, "PROTOCOL", "http")
    monkeypatch.setattr(twitterapi_module, "DOMAIN", domain)
    monkeypatch.setattr(twitterapi_module, "ENDPOINTS", endpoints)


def make_client(consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, token=TOKEN,
                token_secret=TOKEN_SECRET):
    api = TwitterAPI(consumer_key, consumer_secret, token, token_secret, api_version="1.1")
    api.REST_TIMEOUT = 30  # default 5 s; the emulator may share a busy machine
    api.CONNECTION_TIMEOUT = 30
    return api


@pytest.fixture
def api():
    return make_client()


def ok(response):
    assert response.status_code == 200, f"{response.status_code}: {response.text}"
    return response.json()


def error_codes(response):
    return twitter_codes(response.json()["errors"])


def place_ids(answer):
    return [p["id"] for p in answer["result"]["places"]]


def post(api, **params):
    return ok(api.request("statuses/update", params))


# ---- users ----

def test_verify_credentials(api, control):
    response = api.request("account/verify_credentials")
    user = ok(response)
    assert_twitter_user_json(user)
    assert user["geo_enabled"] is True
    assert control.last("verify_credentials")["path"] == "/1.1/account/verify_credentials.json"
    assert response.headers["x-rate-limit-limit"] == "75"
    assert response.headers["x-rate-limit-remaining"] == "74"


def test_users_show(api):
    assert_twitter_user_json(ok(api.request("users/show", {"screen_name": SCREEN_NAME})))
    assert_twitter_user_json(ok(api.request("users/show", {"user_id": USER_ID})))
    missing = api.request("users/show", {"screen_name": "no_such_user_here"})
    assert missing.status_code == 404 and error_codes(missing) == [50]


# ---- geo ----

def test_reverse_geocode_poi(api, control, twitter_places):
    response = api.request("geo/reverse_geocode", {"lat": LAT, "long": LONG, "granularity": "poi"})
    answer = ok(response)
    assert control.last("reverse_geocode")["parameters"] == {"lat": str(LAT), "long": str(LONG), "granularity": "poi"}
    assert TWITTER_POI in place_ids(answer)
    for place in answer["result"]["places"]:
        fixture = twitter_places[place["id"]]
        assert place["full_name"] == fixture["full_name"]
        assert place["place_type"] == fixture["place_type"]
        assert_place_url(place["url"], place["id"])
        assert_bounding_box(place["bounding_box"])
        for parent in place.get("contained_within", []):
            assert_place_url(parent["url"], parent["id"])
    poi = next(p for p in answer["result"]["places"] if p["id"] == TWITTER_POI)
    assert [p["id"] for p in poi["contained_within"]] == [twitter_places[TWITTER_POI]["parent"]]
    assert response.headers["x-rate-limit-limit"] == "15"
    assert response.headers["x-rate-limit-remaining"] == "14"
    assert int(response.headers["x-rate-limit-reset"]) > time.time()
    assert response.get_quota()["remaining"] == 14


def test_reverse_geocode_default_granularity_and_max_results(api):
    answer = ok(api.request("geo/reverse_geocode", {"lat": LAT, "long": LONG}))
    assert "poi" not in {p["place_type"] for p in answer["result"]["places"]}
    assert TWITTER_NEIGHBORHOOD in place_ids(answer)
    one = ok(api.request("geo/reverse_geocode", {"lat": LAT, "long": LONG, "max_results": 1}))
    assert place_ids(one) == [TWITTER_NEIGHBORHOOD]


def test_geo_search_by_point(api):
    assert TWITTER_NEIGHBORHOOD in place_ids(ok(api.request("geo/search", {"lat": LAT, "long": LONG})))
    city = ok(api.request("geo/search", {"lat": LAT, "long": LONG, "granularity": "city"}))
    assert {p["place_type"] for p in city["result"]["places"]} <= {"city", "admin", "country"}
    assert TWITTER_CITY in place_ids(city)


def test_geo_search_query_with_ampersand(api, control):
    answer = ok(api.request("geo/search", {"query": "Page Mill Road Park & Ride", "granularity": "poi"}))
    assert place_ids(answer) == [TWITTER_PARK_AND_RIDE]
    assert control.last("geo/search")["parameters"]["query"] == "Page Mill Road Park & Ride"


def test_geo_search_non_ascii_query(api, control):
    answer = ok(api.request("geo/search", {"query": "Café", "granularity": "poi"}))
    assert answer["result"]["places"] and all("Café" in p["full_name"] for p in answer["result"]["places"])
    assert control.last("geo/search")["parameters"]["query"] == "Café"


def test_geo_search_without_location_is_404_13(api):
    response = api.request("geo/search", {"granularity": "poi"})
    assert response.status_code == 404 and error_codes(response) == [13]


def test_similar_places(api):
    answer = ok(api.request("geo/similar_places", {"lat": LAT, "long": LONG, "name": "Civic Center"}))
    assert TWITTER_NEIGHBORHOOD in place_ids(answer)
    assert isinstance(answer["result"]["token"], str) and answer["result"]["token"]


def test_geo_id(api, control):
    place = ok(api.request(f"geo/id/:{TWITTER_POI}"))
    assert control.last("geo/id")["path"] == f"/1.1/geo/id/{TWITTER_POI}.json"
    assert place["id"] == TWITTER_POI
    assert_place_url(place["url"], TWITTER_POI)
    assert_bounding_box(place["bounding_box"])
    missing = api.request("geo/id/:0000000000000000")
    assert missing.status_code == 404 and error_codes(missing) == [34]


# ---- statuses ----

def test_update_without_location(api, control):
    text = unique("Plain status")
    tweet = post(api, status=text)
    assert_tweet_json(tweet, text)
    assert tweet["geo"] is None and tweet["coordinates"] is None and tweet["place"] is None
    entry = control.last("statuses/update")
    assert entry["method"] == "POST" and entry["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert entry["parameters"] == {"status": text}


def test_update_text_with_reserved_characters(api, control):
    # A form body signed by requests-oauthlib: '+', '&', '=', '%', non-ASCII and emoji.
    text = unique("Café ☕ 100% + more & less = !*'();:@$,/?#[]")
    assert ok(api.request("statuses/update", {"status": text}))["text"] == as_twitter_sent(text)
    assert control.last("statuses/update")["parameters"]["status"] == text


def test_update_display_coordinates_true(api, control):
    tweet = post(api, status=unique("At the café"), lat=LAT, long=LONG, display_coordinates="true")
    assert control.last("statuses/update")["parameters"]["display_coordinates"] == "true"
    assert tweet["coordinates"] == {"type": "Point", "coordinates": [LONG, LAT]}
    assert tweet["geo"] == {"type": "Point", "coordinates": [LAT, LONG]}
    latest = ok(api.request("statuses/user_timeline"))[0]
    assert latest["id"] == tweet["id"] and latest["coordinates"] == tweet["coordinates"]


def test_update_display_coordinates_false(api, control):
    text = unique("Private")
    tweet = post(api, status=text, lat=LAT, long=LONG, display_coordinates="false")
    assert control.last("statuses/update")["parameters"]["display_coordinates"] == "false"
    assert_tweet_json(tweet, text)
    assert tweet["coordinates"] is None and tweet["geo"] is None
    for latest in (ok(api.request("statuses/user_timeline"))[0], ok(api.request(f"statuses/show/:{tweet['id']}"))):
        assert latest["id"] == tweet["id"]
        assert latest["coordinates"] is None and latest["geo"] is None


def test_update_display_coordinates_false_keeps_place(api):
    tweet = post(api, status=unique("In Cupertino"), lat=LAT, long=LONG, place_id=TWITTER_CITY,
                 display_coordinates="false")
    assert tweet["coordinates"] is None and tweet["geo"] is None
    assert tweet["place"]["id"] == TWITTER_CITY
    assert_place_url(tweet["place"]["url"], TWITTER_CITY)


def test_user_timeline_show_and_destroy(api, control):
    first = post(api, status=unique("first"))
    second = post(api, status=unique("second"))
    timeline = ok(api.request("statuses/user_timeline", {"screen_name": SCREEN_NAME}))
    assert [t["id"] for t in timeline[:2]] == [second["id"], first["id"]]
    assert [t["id"] for t in api.request("statuses/user_timeline", {"count": 1})] == [second["id"]]

    shown = ok(api.request(f"statuses/show/:{first['id']}"))
    assert control.last("statuses/show")["path"] == f"/1.1/statuses/show/{first['id']}.json"
    assert shown["id_str"] == first["id_str"]
    destroyed = ok(api.request(f"statuses/destroy/:{first['id']}"))
    entry = control.last("statuses/destroy")
    assert entry["method"] == "POST" and entry["path"] == f"/1.1/statuses/destroy/{first['id']}.json"
    assert destroyed["id"] == first["id"]
    gone = api.request(f"statuses/show/:{first['id']}")
    assert gone.status_code == 404 and error_codes(gone) == [144]
    with pytest.raises(TwitterRequestError) as raised:
        list(gone)
    assert raised.value.status_code == 404
    assert list(raised.value) == ["No status found with that ID."]


def test_user_timeline_through_twitter_pager(api, control):
    ids = [post(api, status=unique(f"Paged {n}"))["id"] for n in range(5)]
    pager = TwitterPager(api, "statuses/user_timeline", {"count": 2})
    paged = [tweet["id"] for tweet in pager.get_iterator(wait=0)]
    assert paged == list(reversed(ids))
    max_ids = [e["parameters"].get("max_id") for e in control.journal("user_timeline")]
    assert max_ids[0] is None and all(max_ids[1:])


# ---- errors ----

def test_duplicate_status_is_403_187(api):
    text = unique("Twice")
    post(api, status=text)
    again = api.request("statuses/update", {"status": text})
    assert again.status_code == 403 and error_codes(again) == [187]
    with pytest.raises(TwitterRequestError) as raised:
        again.get_iterator()
    assert list(raised.value) == ["Status is a duplicate."]


def test_bad_signature_is_401_32():
    response = make_client(consumer_secret="not-the-secret").request("account/verify_credentials")
    assert response.status_code == 401 and error_codes(response) == [32]
    assert response.json()["errors"][0]["message"] == "Could not authenticate you."


def test_unknown_token_is_401_89():
    response = make_client(token="1001-unknown-token").request("account/verify_credentials")
    assert response.status_code == 401 and error_codes(response) == [89]
    assert response.json()["errors"][0]["message"] == "Invalid or expired token."


def test_timestamp_out_of_bounds_is_401_135(api, control):
    control.clock(3600)
    response = api.request("account/verify_credentials")
    assert response.status_code == 401 and error_codes(response) == [135]


# ---- rate limits ----

def test_sixteenth_reverse_geocode_is_429_88(api):
    for n in range(15):
        response = api.request("geo/reverse_geocode", {"lat": LAT, "long": LONG})
        assert response.status_code == 200, n
        assert response.headers["x-rate-limit-remaining"] == str(14 - n)
    # get_quota() reads limit and reset only when remaining is 0 — and only for a response that
    # is truthy (requests: status < 400), so on the 15th call, not on the 429.
    quota = response.get_quota()
    assert quota["remaining"] == 0 and quota["limit"] == 15
    assert quota["reset"] == datetime.datetime.fromtimestamp(int(response.headers["x-rate-limit-reset"]))
    limited = api.request("geo/reverse_geocode", {"lat": LAT, "long": LONG})
    assert limited.status_code == 429 and error_codes(limited) == [88]
    assert limited.json()["errors"][0]["message"] == "Rate limit exceeded"
    assert limited.headers["x-rate-limit-limit"] == "15"
    assert limited.headers["x-rate-limit-remaining"] == "0"
    reset = int(limited.headers["x-rate-limit-reset"])
    assert time.time() < reset <= time.time() + 901
    assert reset == int(response.headers["x-rate-limit-reset"])  # the same window
    with pytest.raises(TwitterRequestError) as raised:
        limited.get_iterator()
    assert raised.value.status_code == 429 and list(raised.value) == ["Rate limit exceeded"]


def test_application_rate_limit_status(api):
    api.request("geo/reverse_geocode", {"lat": LAT, "long": LONG})
    api.request("statuses/user_timeline")
    status = ok(api.request("application/rate_limit_status", {"resources": "geo,statuses"}))
    assert set(status["resources"]) == {"geo", "statuses"}
    reverse = status["resources"]["geo"]["/geo/reverse_geocode"]
    assert (reverse["limit"], reverse["remaining"]) == (15, 14) and isinstance(reverse["reset"], int)
    timeline = status["resources"]["statuses"]["/statuses/user_timeline"]
    assert (timeline["limit"], timeline["remaining"]) == (900, 899)
