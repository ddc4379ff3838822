"""tweepy 4.x (tweepy.API, v1.1) against the emulator, through tweepy's own methods and models.

Pointing it at the emulator: tweepy.API.request builds the URL as 'https://' + api.host + path
and hands it to api.session.request(..., auth=OAuth1(...)). We pass host='127.0.0.1:PORT' and
replace api.session with a requests.Session subclass whose request() turns 'https://' into
'http://' before anything else — before requests prepares the request and before
requests-oauthlib signs it — so the signed URL is exactly the one sent. Nothing else in tweepy
is touched.

What tweepy sends (verified in the journal below): every parameter goes through str(), in the
query string, even for POST statuses/update (no body) — display_coordinates=False is sent as
'False', True as 'True'; spaces are encoded as '+' (urllib.parse.urlencode).
"""

import datetime
import re

import pytest
import requests
import tweepy

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET, TWITTER_CITY,
    TWITTER_NEIGHBORHOOD, TWITTER_POI, USER_ID, GRANULARITIES, assert_bounding_box,
    as_twitter_sent, assert_place_url, unique,
)


class PlainHTTPSession(requests.Session):
    """tweepy builds https:// URLs; the emulator speaks http. Rewrite the scheme first thing,
    so preparing and OAuth-signing see the URL actually sent."""

    def request(self, method, url, *args, **kwargs):
        if isinstance(url, str) and url.startswith("https://"):
            url = "http://" + url[len("https://"):]
        return super().request(method, url, *args, **kwargs)


def make_api(host, consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, token=TOKEN,
             token_secret=TOKEN_SECRET, **kwargs):
    auth = tweepy.OAuth1UserHandler(consumer_key, consumer_secret, token, token_secret)
    api = tweepy.API(auth, host=host, timeout=30, **kwargs)
    api.session = PlainHTTPSession()
    return api


@pytest.fixture
def api(host):
    return make_api(host)


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc)


def assert_status(status, text=None):
    """What tweepy's Status model gives from a Twitter tweet."""
    assert isinstance(status, tweepy.models.Status)
    assert isinstance(status.id, int), f"Status.id: {getattr(status, 'id', None)!r}"
    assert status.id_str == str(status.id)
    if text is not None:
        assert status.text == as_twitter_sent(text)  # tweepy hands it on as sent (tweepy#1080)
    assert isinstance(status.created_at, datetime.datetime), "created_at not parsed by tweepy"
    assert status.created_at.tzinfo is not None
    assert abs((status.created_at - now_utc()).total_seconds()) < 300
    assert isinstance(status.author, tweepy.models.User)
    assert status.author.screen_name == SCREEN_NAME
    assert status.author.id == USER_ID
    for key in ("hashtags", "symbols", "user_mentions", "urls"):
        assert isinstance(status.entities[key], list)
    hash(status)  # HashableID: needs .id


def assert_no_location(status):
    # Twitter sent "geo": null, "coordinates": null, "place": null — tweepy sets them as None;
    # a missing key is an AttributeError on access.
    assert status.geo is None
    assert status.coordinates is None
    assert status.place is None


# ---- users ----

def test_verify_credentials_parses_user(api):
    user = api.verify_credentials()
    assert isinstance(user, tweepy.models.User)
    assert user.id == USER_ID
    assert user.id_str == str(USER_ID)
    assert user.screen_name == SCREEN_NAME
    assert user.geo_enabled is True
    assert isinstance(user.name, str)
    assert isinstance(user.created_at, datetime.datetime)
    hash(user)


def test_verify_credentials_shows_geo_enabled_off(api, control):
    control.geo_enabled(False)
    assert api.verify_credentials().geo_enabled is False


def test_get_user_users_show(api):
    by_name = api.get_user(screen_name=SCREEN_NAME)
    assert by_name.id == USER_ID and by_name.screen_name == SCREEN_NAME
    by_id = api.get_user(user_id=USER_ID)
    assert by_id.id_str == str(USER_ID) and by_id.screen_name == SCREEN_NAME


# ---- geo ----

def test_reverse_geocode_poi_parses_places(api, twitter_places):
    places = api.reverse_geocode(lat=LAT, long=LONG, granularity="poi")
    assert isinstance(places, tweepy.models.ResultSet) and places
    ids = [p.id for p in places]
    assert TWITTER_POI in ids
    for place in places:
        assert isinstance(place, tweepy.models.Place)
        fixture = twitter_places[place.id]
        assert place.full_name == fixture["full_name"]
        assert place.place_type == fixture["place_type"]
        assert place.country_code == "US"
        assert_place_url(place.url, place.id)
        assert isinstance(place.bounding_box, tweepy.models.BoundingBox)
        lon, lat = place.bounding_box.origin()
        east, north = place.bounding_box.corner()
        assert lon <= LONG <= east and lat <= LAT <= north
    poi = places[ids.index(TWITTER_POI)]
    assert [p.id for p in poi.contained_within] == [twitter_places[TWITTER_POI]["parent"]]
    assert all(isinstance(p, tweepy.models.Place) for p in poi.contained_within)
    # Listed places and their parents carry `centroid` ([lon, lat]), as recorded answers of
    # geo/reverse_geocode do (tweepy's cassettes/testgeoapis.json).
    for place in places + poi.contained_within:
        lon, lat = place.centroid
        (west, south), (east, north) = place.bounding_box.origin(), place.bounding_box.corner()
        assert west <= lon <= east and south <= lat <= north


def test_reverse_geocode_default_granularity_is_neighborhood(api):
    places = api.reverse_geocode(lat=LAT, long=LONG)
    types = {p.place_type for p in places}
    assert "poi" not in types
    assert TWITTER_NEIGHBORHOOD in [p.id for p in places]


def test_reverse_geocode_granularity_city(api):
    places = api.reverse_geocode(lat=LAT, long=LONG, granularity="city")
    assert {p.place_type for p in places} <= {"city", "admin", "country"}
    assert TWITTER_CITY in [p.id for p in places]


def test_reverse_geocode_max_results(api):
    assert len(api.reverse_geocode(lat=LAT, long=LONG, granularity="poi", max_results=1)) == 1


def test_search_geo_by_coordinates_without_granularity(api):
    places = api.search_geo(lat=LAT, long=LONG)
    assert TWITTER_NEIGHBORHOOD in [p.id for p in places]


def test_search_geo_by_coordinates_with_granularity(api):
    places = api.search_geo(lat=LAT, long=LONG, granularity="city")
    assert {p.place_type for p in places} <= {"city", "admin", "country"}
    assert TWITTER_CITY in [p.id for p in places]


def test_search_geo_query_with_space(api, control):
    # tweepy encodes the space as '+': the query is 'query=Stevens+Creek&granularity=poi'.
    places = api.search_geo(query="Stevens Creek", granularity="poi")
    assert TWITTER_POI in [p.id for p in places]
    assert all("Stevens Creek" in p.full_name for p in places)
    assert control.last("geo/search")["parameters"]["query"] == "Stevens Creek"


def test_search_geo_query_non_ascii(api):
    places = api.search_geo(query="Café", granularity="poi")
    assert places and all("Café" in p.name for p in places)


def test_search_geo_without_location_or_query_is_404_13(api):
    with pytest.raises(tweepy.errors.NotFound) as raised:
        api.search_geo()
    assert raised.value.api_codes == [13]


def test_geo_id(api, twitter_places):
    place = api.geo_id(TWITTER_POI)
    assert isinstance(place, tweepy.models.Place)
    assert place.id == TWITTER_POI
    assert place.full_name == twitter_places[TWITTER_POI]["full_name"]
    assert_place_url(place.url, TWITTER_POI)
    assert_bounding_box({"type": place.bounding_box.type, "coordinates": place.bounding_box.coordinates})


def test_geo_id_unknown_is_404_34(api):
    with pytest.raises(tweepy.errors.NotFound) as raised:
        api.geo_id("0000000000000000")
    assert raised.value.api_codes == [34]


# ---- statuses ----

def test_update_status_without_location(api):
    text = unique("Plain status")
    status = api.update_status(text)
    assert_status(status, text)
    assert_no_location(status)


def test_update_status_entities(api):
    text = unique("Coffee #waypost with @WAYPOST_demo and @no_such_user_zz")
    status = api.update_status(text)
    assert [h["text"] for h in status.entities["hashtags"]] == ["waypost"]
    # A user mention object: screen_name, name, id, id_str, indices (recorded in tweepy's
    # cassettes, testsearchtweets.json); a name no account has is no mention.
    [mention] = status.entities["user_mentions"]
    assert mention["screen_name"] == SCREEN_NAME and mention["id"] == USER_ID
    assert mention["id_str"] == str(USER_ID) and mention["name"] == status.user.name
    assert text[mention["indices"][0]:mention["indices"][1]] == "@WAYPOST_demo"


def test_update_status_display_coordinates_true(api, control):
    text = unique("At the café")
    status = api.update_status(text, lat=LAT, long=LONG, display_coordinates=True)
    assert_status(status, text)
    assert status.coordinates == {"type": "Point", "coordinates": [LONG, LAT]}
    assert status.geo == {"type": "Point", "coordinates": [LAT, LONG]}
    sent = control.last("statuses/update")["parameters"]
    assert sent["display_coordinates"] == "True"  # tweepy: str(True)


def test_update_status_display_coordinates_false_hides_coordinates(api, control):
    text = unique("Somewhere private")
    status = api.update_status(text, lat=LAT, long=LONG, display_coordinates=False)
    sent = control.last("statuses/update")["parameters"]
    assert sent["display_coordinates"] == "False"  # tweepy: str(False), capital F
    assert status.coordinates is None, f"coordinates leaked: {status.coordinates}"
    assert status.geo is None, f"geo leaked: {status.geo}"
    timeline = api.user_timeline()
    assert timeline[0].id == status.id
    assert timeline[0].coordinates is None and timeline[0].geo is None


def test_display_coordinates_false_keeps_the_place(api):
    status = api.update_status(unique("Hidden pin"), lat=LAT, long=LONG, place_id=TWITTER_CITY,
                               display_coordinates=False)
    assert status.coordinates is None and status.geo is None
    assert status.place.id == TWITTER_CITY


def test_out_of_range_coordinates_are_ignored(api):
    # Twitter: lat outside -90…90 (or long outside -180…180) is ignored, the status is posted.
    status = api.update_status(unique("Off the map"), lat=91.0, long=LONG, display_coordinates=True)
    assert status.coordinates is None and status.geo is None


def test_update_status_with_place_id(api, twitter_places):
    status = api.update_status(unique("In Cupertino"), place_id=TWITTER_CITY)
    place = status.place
    assert isinstance(place, tweepy.models.Place)
    assert place.id == TWITTER_CITY
    assert place.full_name == "Cupertino, CA"
    assert place.place_type == "city"
    assert_place_url(place.url, TWITTER_CITY)
    assert isinstance(place.bounding_box, tweepy.models.BoundingBox)
    assert place.bounding_box.coordinates == twitter_places[TWITTER_CITY]["bounding_box"]["coordinates"]
    # A tweet's place lists no parents and no centroid (recorded tweets, tweepy's cassettes).
    assert place.contained_within == [] and not hasattr(place, "centroid")


def test_coordinates_without_place_id_get_the_reverse_geocoded_place(api):
    # statuses/update, "About Geo": "If no place_id was explicitly provided, but latitude and
    # longitude are, the API attempts to implicitly provide a place by calling
    # geo/reverse_geocode" — its first answer at its default granularity, neighborhood.
    status = api.update_status(unique("Pin only"), lat=LAT, long=LONG, display_coordinates=False)
    assert status.coordinates is None
    assert status.place.id == TWITTER_NEIGHBORHOOD
    assert status.place.id == api.reverse_geocode(lat=LAT, long=LONG)[0].id


def test_long_tweets_are_cut_in_compatibility_mode_and_whole_in_extended_mode(api):
    # twitterdev's tweet-updates: by default "text field is truncated to 140, as needed;
    # truncated field is true"; with tweet_mode=extended "full_text replaces text, truncated is
    # false, display_text_range delineates the displayable text" (docs.tweepy.org, "Extended
    # Tweets"). Recorded cut tweets end "… https://t.co/…", the link to the tweet itself.
    text = unique("A long one: " + "word " * 30)
    status = api.update_status(text)
    assert status.truncated is True and len(status.text) <= 140
    assert re.fullmatch(r".{1,115}… https://t\.co/\w{10}", status.text, re.S)
    link = status.entities["urls"][-1]
    assert link["expanded_url"] == f"https://twitter.com/i/web/status/{status.id}"
    assert status.text[link["indices"][0]:link["indices"][1]] == link["url"]
    extended = api.get_status(status.id, tweet_mode="extended")
    assert extended.full_text == text and extended.truncated is False
    assert extended.display_text_range == [0, len(text)]
    assert not hasattr(extended, "text")
    assert api.user_timeline(tweet_mode="extended")[0].full_text == text
    short = api.get_status(api.update_status(unique("Short")).id)
    assert short.truncated is False and not hasattr(short, "full_text")


def test_reply_is_recorded_when_the_author_is_mentioned(api):
    # statuses/update: in_reply_to_status_id "will be ignored unless the author of the Tweet this
    # parameter references is mentioned within the status text" (or auto_populate_reply_metadata).
    first = api.update_status(unique("Thread start"))
    reply = api.update_status(unique(f"@{SCREEN_NAME} and more"), in_reply_to_status_id=first.id)
    assert reply.in_reply_to_status_id == first.id
    assert reply.in_reply_to_status_id_str == first.id_str
    assert reply.in_reply_to_user_id_str == str(USER_ID)
    assert reply.in_reply_to_screen_name == SCREEN_NAME
    assert api.get_status(reply.id).in_reply_to_status_id == first.id
    auto = api.update_status(unique("No mention"), in_reply_to_status_id=first.id,
                             auto_populate_reply_metadata=True)
    assert auto.in_reply_to_status_id == first.id
    ignored = api.update_status(unique("No mention either"), in_reply_to_status_id=first.id)
    assert ignored.in_reply_to_status_id is None


def test_reply_to_a_missing_tweet_is_403_385(api):
    # v1.1 "Response codes": 385 "You attempted to reply to a Tweet that is deleted or not
    # visible to you."
    with pytest.raises(tweepy.errors.Forbidden) as raised:
        api.update_status(unique(f"@{SCREEN_NAME} hello"), in_reply_to_status_id=999)
    assert raised.value.api_codes == [385]


def test_geo_enabled_off_drops_location_silently(api, control):
    control.geo_enabled(False)
    status = api.update_status(unique("No geo"), lat=LAT, long=LONG, place_id=TWITTER_CITY,
                               display_coordinates=True)
    assert_no_location(status)
    assert status.author.geo_enabled is False


def test_user_timeline_newest_first(api):
    first = api.update_status(unique("first"))
    second = api.update_status(unique("second"))
    timeline = api.user_timeline()
    assert [s.id for s in timeline[:2]] == [second.id, first.id]
    for s in timeline:
        assert_status(s)
    assert timeline.max_id == first.id - 1  # ResultSet.max_id: min(ids) - 1
    assert timeline.since_id == second.id
    assert len(api.user_timeline(count=1)) == 1
    by_name = api.user_timeline(screen_name=SCREEN_NAME)
    assert [s.id for s in by_name[:2]] == [second.id, first.id]


def test_user_timeline_cursor_pages_by_max_id(api, control):
    # tweepy.Cursor in 'id' mode asks for the next page with max_id = smallest id seen - 1.
    posted = [api.update_status(unique(f"page {n}")).id for n in range(5)]
    seen = [s.id for s in tweepy.Cursor(api.user_timeline, count=2).items()]
    assert seen == list(reversed(posted))
    max_ids = [e["parameters"].get("max_id") for e in control.journal("user_timeline")]
    assert max_ids[0] is None and max_ids[1] == str(posted[3] - 1)  # first page: posts 4 and 3


def test_user_timeline_since_id(api):
    older = api.update_status(unique("older"))
    newer = api.update_status(unique("newer"))
    assert [s.id for s in api.user_timeline(since_id=older.id)] == [newer.id]
    assert [s.id for s in api.user_timeline(max_id=older.id)] == [older.id]


def test_user_timeline_trim_user(api, control):
    api.update_status(unique("Trimmed"))
    status = api.user_timeline(trim_user=True)[0]
    assert control.last("user_timeline")["parameters"]["trim_user"] == "True"
    assert status.user.id == USER_ID
    assert not hasattr(status.user, "screen_name"), "trim_user: Twitter sent only id and id_str"


def test_user_timeline_of_another_user(api, host, control):
    control.post("twitter/users", user_id="1002", screen_name="other_user", token="1002-other-token",
                 token_secret="other-token-secret")
    other = make_api(host, token="1002-other-token", token_secret="other-token-secret")
    theirs = other.update_status(unique("Not yours"))
    timeline = api.user_timeline(screen_name="other_user")
    assert [s.id for s in timeline] == [theirs.id]
    assert timeline[0].author.screen_name == "other_user"
    assert api.user_timeline(user_id=1002)[0].id == theirs.id
    assert theirs.id not in [s.id for s in api.user_timeline()]


def test_update_status_text_with_plus_ampersand_and_non_ascii(api):
    # All in the query string of the POST: status=Caf%C3%A9+%E2%98%95+1%2B1+%26+more…
    # Twitter answered the text with &, < and > as HTML entities (as_twitter_sent); tweepy hands
    # it on as sent (tweepy#1080), and the entities' indices count the escaped text (Twitter4J#349).
    text = unique("Café ☕ 1+1 & more = !*'() \"<3\" #waypost")
    status = api.update_status(text)
    assert status.text == as_twitter_sent(text)
    start, end = status.entities["hashtags"][0]["indices"]
    assert status.text[start:end] == "#waypost"


def test_links_come_back_wrapped_in_t_co(api):
    # Every link in a tweet came back wrapped in a t.co link ("t.co link wrapper", since 2011):
    # in the text, and as the url entity's url, its expanded_url the link posted, its display_url
    # that without scheme or www., cut at 26 characters with "…" (Twitter's Field Guide).
    link = "http://www.youtube.com/watch?v=oHg5SJYRHA0"
    status = api.update_status(unique(f"Watch {link} now"))
    url = status.entities["urls"][0]
    assert re.fullmatch(r"https://t\.co/[0-9A-Za-z]{10}", url["url"]), url
    assert url["expanded_url"] == link and url["display_url"] == "youtube.com/watch?v=oHg5SJ…"
    start, end = url["indices"]
    assert status.text[start:end] == url["url"] and link not in status.text


def test_get_status(api):
    posted = api.update_status(unique("Show me"), lat=LAT, long=LONG, display_coordinates=True)
    shown = api.get_status(posted.id)
    assert_status(shown, posted.text)
    assert shown.id == posted.id
    assert shown.coordinates == posted.coordinates


def test_destroy_status(api):
    posted = api.update_status(unique("Delete me"))
    destroyed = api.destroy_status(posted.id)
    assert destroyed.id == posted.id
    with pytest.raises(tweepy.errors.NotFound) as raised:
        api.get_status(posted.id)
    assert raised.value.api_codes == [144]
    assert posted.id not in [s.id for s in api.user_timeline()]


def test_destroy_unknown_status_is_404_144(api):
    with pytest.raises(tweepy.errors.NotFound) as raised:
        api.destroy_status(1234567890123)
    assert raised.value.api_codes == [144]


def test_get_unknown_user_is_404_50(api):
    with pytest.raises(tweepy.errors.NotFound) as raised:
        api.get_user(screen_name="nobody_here_at_all")
    assert raised.value.api_codes == [50]


def test_daily_status_limit_is_403_185(api, base_url):
    # Twitter: 2,400 updates a day (also split into semi-hourly limits, so 185 may come sooner).
    from requests_oauthlib import OAuth1
    session = requests.Session()
    session.auth = OAuth1(CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET)
    for n in range(2400):
        response = session.post(f"{base_url}/1.1/statuses/update.json", data={"status": f"bulk {n}"}, timeout=30)
        if response.status_code != 200:
            assert response.status_code == 403 and response.json()["errors"][0]["code"] == 185, response.text
            break
    with pytest.raises(tweepy.errors.Forbidden) as raised:
        api.update_status(unique("One too many"))
    assert raised.value.api_codes == [185]


def test_duplicate_status_is_403_187(api):
    text = unique("Twice")
    api.update_status(text)
    with pytest.raises(tweepy.errors.Forbidden) as raised:
        api.update_status(text)
    assert raised.value.api_codes == [187]


def test_status_over_280_is_403_186(api):
    with pytest.raises(tweepy.errors.Forbidden) as raised:
        api.update_status("x" * 281)
    assert raised.value.api_codes == [186]
    # The message client code matches on (v1.1 "Response codes").
    assert raised.value.api_messages == ["Tweet needs to be a bit shorter."]


# ---- authentication errors ----

def test_bad_signature_is_401_32(host):
    api = make_api(host, consumer_secret="not-the-secret")
    with pytest.raises(tweepy.errors.Unauthorized) as raised:
        api.verify_credentials()
    assert raised.value.api_codes == [32]


def test_unknown_token_is_401_89(host):
    api = make_api(host, token="1001-unknown-token")
    with pytest.raises(tweepy.errors.Unauthorized) as raised:
        api.verify_credentials()
    assert raised.value.api_codes == [89]


def test_timestamp_out_of_bounds_is_401_135(api, control):
    control.clock(3600)
    with pytest.raises(tweepy.errors.Unauthorized) as raised:
        api.verify_credentials()
    assert raised.value.api_codes == [135]


def test_read_only_application_is_403_261(host, control):
    control.consumer("read-only-consumer", "read-only-secret", access="read")
    api = make_api(host, consumer_key="read-only-consumer", consumer_secret="read-only-secret")
    assert api.verify_credentials().screen_name == SCREEN_NAME  # reading is allowed
    with pytest.raises(tweepy.errors.Forbidden) as raised:
        api.update_status(unique("Not allowed"))
    assert raised.value.api_codes == [261]


# ---- rate limits ----

def test_geo_rate_limit_is_429_88_with_headers(api):
    for n in range(15):
        api.reverse_geocode(lat=LAT, long=LONG)
        assert api.last_response.headers["x-rate-limit-limit"] == "15"
        assert api.last_response.headers["x-rate-limit-remaining"] == str(14 - n)
    with pytest.raises(tweepy.errors.TooManyRequests) as raised:
        api.reverse_geocode(lat=LAT, long=LONG)
    assert raised.value.api_codes == [88]
    headers = raised.value.response.headers
    assert headers["x-rate-limit-limit"] == "15"
    assert headers["x-rate-limit-remaining"] == "0"
    reset = int(headers["x-rate-limit-reset"])
    assert now_utc().timestamp() < reset <= now_utc().timestamp() + 901
    # Other geo endpoints have their own windows.
    assert api.search_geo(lat=LAT, long=LONG) is not None


def test_rate_limit_status(api):
    api.reverse_geocode(lat=LAT, long=LONG)
    status = api.rate_limit_status()
    geo = status["resources"]["geo"]
    assert geo["/geo/reverse_geocode"]["limit"] == 15
    assert geo["/geo/reverse_geocode"]["remaining"] == 14
    assert geo["/geo/search"]["remaining"] == 15
    assert isinstance(geo["/geo/reverse_geocode"]["reset"], int)
    assert "/statuses/user_timeline" in status["resources"]["statuses"]


def test_granularities_are_accepted(api):
    for granularity in GRANULARITIES:
        places = api.reverse_geocode(lat=LAT, long=LONG, granularity=granularity)
        rank = GRANULARITIES.index(granularity)
        assert all(GRANULARITIES.index(p.place_type) >= rank for p in places)
