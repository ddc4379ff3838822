"""facepy 1.0.12 (facepy.GraphAPI) against the emulator's Graph API.

Pointing it at the emulator: GraphAPI(oauth_token, url='http://127.0.0.1:PORT', version=…) —
`url` is a constructor argument (default 'https://graph.facebook.com'); nothing is patched.

What it sends (checked in the journal below): GET/DELETE <url>[/vX.Y]/<path>?…&access_token=…;
POST a form body with the fields and access_token; a list/dict/set field is sent as JSON
(json.dumps), a list of strings as 'a,b'. version=None sends unversioned paths (Graph then
answers with the app's default version, v3.1 in the emulator). search(term, type='place', …)
is GET <url>[/vX.Y]/search?q=term&type=place&…; term=None drops q (requests omits None).

What it does with the answer: JSON floats become decimal.Decimal (json.loads(parse_float=
Decimal)); every dict answer gets an extra 'headers' key (the response headers); a body with
"error" raises OAuthError when error.type == 'OAuthException', else FacebookError (its base),
with .code, .error_subcode, .message, .fbtrace_id… (HTTP status ignored below 500). get() and
search() retry a failed call 3 more times by default (retry=3); post() does not (retry=0).
page=True returns a generator of pages that follows paging.next — it requests that absolute URL
*and* re-sends the original parameters (so the query repeats them, with the same values) until
a page has no paging.next.
"""

import datetime
import json
import math
from decimal import Decimal

import facepy
import pytest

from conftest import GRAPH_PAGE, GRAPH_PERMISSIONS, GRAPH_TOKEN, GRAPH_USER_ID, LAT, LONG, unique

# None: unversioned paths (the app's default version, v3.1 in the emulator); "2.8": /v2.8/….
VERSIONS = [None, "2.8"]
DEFAULT_VERSION = "3.1"
CENTER = f"{LAT},{LONG}"


@pytest.fixture(params=VERSIONS, ids=["unversioned", "v2.8"])
def graph(request, base_url):
    return facepy.GraphAPI(GRAPH_TOKEN, url=base_url, version=request.param, timeout=30)


def prefix(graph):
    """The path prefix facepy puts before every path: '/v2.8' or ''."""
    return f"/v{graph.version}" if graph.version else ""


def answered_version(graph):
    return "v" + (graph.version or DEFAULT_VERSION)


def graph_error(call):
    with pytest.raises(facepy.FacebookError) as raised:
        call()
    return raised.value


def checkin(graph, message=None, place=GRAPH_PAGE, **fields):
    return graph.post("me/checkins", place=place, message=message or unique("Espresso"), **fields)


def metres(location):
    """Distance of a page's location from (LAT, LONG), equirectangular (fine below a few km)."""
    lat, lon = float(location["latitude"]), float(location["longitude"])
    x = math.radians(lon - LONG) * math.cos(math.radians((lat + LAT) / 2))
    return 6371008.8 * math.hypot(x, math.radians(lat - LAT))


# ---- reading ----

def test_get_me(graph, control):
    me = graph.get("me")
    assert me["id"] == GRAPH_USER_ID
    assert isinstance(me["name"], str) and me["name"]
    assert me["headers"]["facebook-api-version"] == answered_version(graph)
    entry = control.last("/me")
    assert entry["method"] == "GET" and entry["path"] == prefix(graph) + "/me"
    assert entry["parameters"]["access_token"] == "REDACTED"  # sent, redacted by the journal


def test_get_me_with_fields(graph):
    me = graph.get("me", fields=["id", "name"])  # a list of strings is sent as fields=id,name
    assert me["id"] == GRAPH_USER_ID and "name" in me


def test_get_page_by_id(graph, facebook_pages):
    page = graph.get(GRAPH_PAGE)
    fixture = facebook_pages[GRAPH_PAGE]
    assert page["id"] == GRAPH_PAGE and page["name"] == fixture["name"]
    assert page["category"] == fixture["category"]
    location = page["location"]
    assert isinstance(location["latitude"], Decimal) and isinstance(location["longitude"], Decimal)
    assert location["latitude"] == Decimal(str(fixture["location"]["latitude"]))


def test_get_several_by_ids(graph, control, facebook_pages):
    # GET [/vX.Y]/?ids=1001,1002&access_token=…; unversioned, that is GET /?ids=… (Graph serves
    # the root path with the app's default version, as it does /me). facepy returns a body that
    # is not JSON as a str.
    pages = graph.get("", ids=[GRAPH_PAGE, "1002"])
    assert isinstance(pages, dict), f"not a JSON object: {pages!r}"
    assert set(pages) - {"headers"} == {GRAPH_PAGE, "1002"}
    entry = control.journal()[-1]
    assert entry["path"] == prefix(graph) + "/" and entry["parameters"]["ids"] == f"{GRAPH_PAGE},1002"
    assert pages["1002"]["name"] == facebook_pages["1002"]["name"]


def test_me_without_access_token_is_2500(base_url):
    graph = facepy.GraphAPI(url=base_url, timeout=30)
    error = graph_error(lambda: graph.get("me", retry=0))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 2500


# ---- search?type=place ----

def test_search_place_nearest_first(graph, control, facebook_pages):
    result = graph.get("search", type="place", center=CENTER, distance=1000)
    pages = result["data"]
    assert [p["id"] for p in pages][:1] == [GRAPH_PAGE]
    distances = [metres(p["location"]) for p in pages]
    assert distances == sorted(distances)
    assert all(d <= 1000 for d in distances)
    assert len(pages) >= 3
    for page in pages:
        assert page["name"] == facebook_pages[page["id"]]["name"]
        assert isinstance(page["location"]["latitude"], Decimal)  # a JSON number
    assert control.last("search")["path"] == prefix(graph) + "/search"


def test_search_method_with_term(graph, control, facebook_pages):
    # search(term, …) sends q=term&type=place: "Café" within 2 km matches two pages.
    pages = graph.search("Café", center=CENTER, distance=2000)["data"]
    assert [p["id"] for p in pages] == ["1002", "1003"]
    assert all("Café" in p["name"] for p in pages)
    sent = control.last("search")["parameters"]
    assert sent["q"] == "Café" and sent["type"] == "place" and sent["center"] == CENTER


def test_search_method_without_term_sends_no_q(graph, control):
    pages = graph.search(None, center=CENTER, distance=500)["data"]
    assert [p["id"] for p in pages][:1] == [GRAPH_PAGE]
    assert "q" not in control.last("search")["parameters"]


def test_search_limit_and_paging_through_page_true(graph, control):
    everything = [p["id"] for p in graph.get("search", type="place", center=CENTER, distance=2000)["data"]]
    assert len(everything) >= 5
    first = graph.get("search", type="place", center=CENTER, distance=2000, limit=2)
    assert [p["id"] for p in first["data"]] == everything[:2]
    assert first["paging"]["next"].startswith("http")
    assert first["paging"]["cursors"]["after"]

    pages = list(graph.get("search", page=True, type="place", center=CENTER, distance=2000, limit=2))
    assert [len(page["data"]) for page in pages[:-1]] == [2] * (len(pages) - 1)
    assert [p["id"] for page in pages for p in page["data"]] == everything
    assert "next" not in pages[-1].get("paging", {})
    followed = control.journal("search")[-(len(pages) - 1):]
    assert all("after" in entry["parameters"] for entry in followed)
    if graph.version:  # paging.next keeps the version asked for
        assert {entry["path"] for entry in followed} == {prefix(graph) + "/search"}


def test_search_with_term_and_page_true(graph):
    pages = list(graph.search("Café", page=True, center=CENTER, distance=2000, limit=1))
    assert [[p["id"] for p in page["data"]] for page in pages if page["data"]] == [["1002"], ["1003"]]


def test_search_invalid_center_is_100(graph):
    error = graph_error(lambda: graph.search(None, center="north", distance=500, retry=0))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 100


# ---- check-ins and posts ----

def test_post_checkin_and_read_it_back(graph, control, facebook_pages):
    message = unique("Espresso")
    coordinates = json.dumps({"latitude": LAT, "longitude": LONG})
    created = checkin(graph, message, coordinates=coordinates)
    assert created["id"].startswith(GRAPH_USER_ID + "_")
    sent = control.last("checkins")
    assert sent["method"] == "POST" and sent["path"] == prefix(graph) + "/me/checkins"
    assert sent["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert json.loads(sent["parameters"]["coordinates"]) == {"latitude": LAT, "longitude": LONG}

    latest = graph.get("me/checkins")["data"][0]
    assert latest["id"] == created["id"]
    assert latest["message"] == message
    assert latest["place"]["id"] == GRAPH_PAGE
    assert latest["place"]["name"] == facebook_pages[GRAPH_PAGE]["name"]
    assert latest["coordinates"] == {"latitude": Decimal(str(LAT)), "longitude": Decimal(str(LONG))}
    created_time = datetime.datetime.strptime(latest["created_time"], "%Y-%m-%dT%H:%M:%S%z")
    assert abs((created_time - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) < 300

    by_id = graph.get(created["id"])
    assert by_id["id"] == created["id"] and by_id["message"] == message


def test_post_checkin_coordinates_as_dict(graph, control):
    # facepy json.dumps()es a dict field itself.
    created = checkin(graph, coordinates={"latitude": LAT, "longitude": LONG})
    assert json.loads(control.last("checkins")["parameters"]["coordinates"]) == {"latitude": LAT, "longitude": LONG}
    assert graph.get(created["id"])["coordinates"] == {"latitude": Decimal(str(LAT)), "longitude": Decimal(str(LONG))}


def test_checkins_paging_through_page_true(graph):
    ids = [checkin(graph, unique(f"Check-in {n}"))["id"] for n in range(5)]
    pages = list(graph.get("me/checkins", page=True, limit=2))
    assert [c["id"] for page in pages for c in page["data"]] == list(reversed(ids))
    assert [len(page["data"]) for page in pages if page["data"]] == [2, 2, 1]


def test_post_feed(graph, control):
    message = unique("Hello")
    created = graph.post("me/feed", message=message, place=GRAPH_PAGE)
    assert created["id"].startswith(GRAPH_USER_ID + "_")
    assert control.last("/me/feed")["path"] == prefix(graph) + "/me/feed"


def test_delete_checkin(graph, control):
    keep = checkin(graph)
    gone = checkin(graph)
    answer = graph.delete(gone["id"])  # DELETE [/vX.Y]/2001_…
    assert answer["success"] is True  # Graph ≥ 2.x: {"success": true}
    entry = control.last(gone["id"])
    assert entry["method"] == "DELETE" and entry["path"] == f"{prefix(graph)}/{gone['id']}"
    assert [c["id"] for c in graph.get("me/checkins")["data"]] == [keep["id"]]


def test_deleted_checkin_by_id_is_100_33(graph):
    # Graph answers a read of an object id that does not exist (here: deleted) with
    # 400 {"error": {"message": "Unsupported get request. Object with ID '…' does not exist,
    # cannot be loaded due to missing permissions, or does not support this operation…",
    # "type": "GraphMethodException", "code": 100, "error_subcode": 33}} — not an
    # OAuthException, so facepy raises FacebookError, not OAuthError. (803 is for aliases.)
    gone = checkin(graph)
    graph.delete(gone["id"])
    error = graph_error(lambda: graph.get(gone["id"], retry=0))
    assert not isinstance(error, facepy.OAuthError), f"OAuthError {error.code}: {error.message}"
    assert (error.code, error.error_subcode) == (100, 33)


def test_duplicate_message_is_506(graph, control):
    message = unique("Same again")
    checkin(graph, message)
    error = graph_error(lambda: checkin(graph, message))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 506
    assert error.message == "(#506) Duplicate status message"
    assert control.last("checkins")["status"] == 400


def test_checkin_without_valid_place_is_100(graph, control):
    error = graph_error(lambda: checkin(graph, place="no-such-page"))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 100
    assert error.message.startswith("(#100)")
    assert control.last("checkins")["status"] == 400


# ---- permissions ----

def test_get_permissions(graph):
    listed = graph.get("me/permissions")["data"]
    assert {p["permission"]: p["status"] for p in listed} == {p: "granted" for p in GRAPH_PERMISSIONS}


def test_declined_permission_is_listed_declined(graph, control):
    control.permission("publish_checkins", "declined")
    listed = {p["permission"]: p["status"] for p in graph.get("me/permissions")["data"]}
    assert listed["publish_checkins"] == "declined"
    assert {p for p, s in listed.items() if s == "granted"} == GRAPH_PERMISSIONS - {"publish_checkins"}


def test_checkin_without_publish_permission_is_200(graph, control):
    control.permission("publish_checkins", "declined")
    control.permission("publish_actions", "declined")
    error = graph_error(lambda: checkin(graph))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 200
    assert error.message.startswith("(#200)")
    assert control.last("checkins")["status"] == 403
    assert graph.get("me/checkins")["data"] == []


# ---- token errors ----

@pytest.mark.parametrize("state,subcode", [
    ("expired", 463), ("password-changed", 460), ("app-not-installed", 458), ("checkpoint", 459),
    ("unconfirmed", 464), ("logged-out", 467),
])
def test_refused_token_is_190_with_subcode(graph, control, state, subcode):
    control.token_state(state)
    error = graph_error(lambda: graph.get("me", retry=0))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 190
    assert error.error_subcode == subcode
    assert error.message.startswith("Error validating access token")
    assert error.fbtrace_id
    assert control.last("/me")["status"] in (400, 401)


def test_refused_token_on_post_is_190(graph, control):
    control.token_state("expired")
    error = graph_error(lambda: checkin(graph))
    assert (error.code, error.error_subcode) == (190, 463)


def test_get_retries_a_refused_call_three_times_by_default(graph, control):
    # facepy's own behaviour (retry=3 on get): four identical requests, four 190s.
    control.token_state("expired")
    error = graph_error(lambda: graph.get("me"))
    assert (error.code, error.error_subcode) == (190, 463)
    assert [e["path"] for e in control.journal("/me")] == [prefix(graph) + "/me"] * 4


def test_unknown_token_is_190(base_url):
    graph = facepy.GraphAPI("not-a-token", url=base_url, timeout=30)
    error = graph_error(lambda: graph.get("me", retry=0))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 190


def test_unknown_edge_of_me_is_2500(graph, control):
    error = graph_error(lambda: graph.get("me/likes", retry=0))
    assert isinstance(error, facepy.OAuthError)
    assert error.code == 2500
    assert error.message == "Unknown path components: /likes"
    assert control.last("/me/likes")["status"] == 400
