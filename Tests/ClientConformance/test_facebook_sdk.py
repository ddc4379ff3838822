"""facebook-sdk 3.1.0 (facebook.GraphAPI) against the emulator's Graph API.

Pointing it at the emulator: GraphAPI.request prefixes every path with the module constant
facebook.FACEBOOK_GRAPH_URL ('https://graph.facebook.com/'); each test monkeypatches it to
'http://127.0.0.1:PORT/'. Nothing else is changed.

What it sends: GET …/vX.Y/<path>?…&access_token=…; POST (put_object) a form body with the
fields and access_token. The default version is v2.8 (VALID_API_VERSIONS[0]); search() goes to
vX.Y/search/ (trailing slash). It needs a content-type header containing 'json'; it raises
facebook.GraphAPIError whenever the JSON body has "error" (it ignores the HTTP status), with
.code = error.code, .type = error.type, .message = error.message, .result = the body.
get_all_connections() follows paging.next: it takes the query of that URL (parse_qs) and
deletes its access_token — so a `next` without access_token is a KeyError.
"""

import datetime
import json

import facebook
import pytest

from conftest import GRAPH_PAGE, GRAPH_PERMISSIONS, GRAPH_TOKEN, GRAPH_USER_ID, LAT, LONG, unique

VERSIONS = [None, "3.1"]  # None: facebook-sdk's default, v2.8


@pytest.fixture(autouse=True)
def graph_url(base_url, monkeypatch):
    monkeypatch.setattr(facebook, "FACEBOOK_GRAPH_URL", base_url + "/")


@pytest.fixture(params=VERSIONS, ids=["default-v2.8", "v3.1"])
def graph(request):
    return facebook.GraphAPI(access_token=GRAPH_TOKEN, timeout=30, version=request.param)


def graph_error(call):
    with pytest.raises(facebook.GraphAPIError) as raised:
        call()
    return raised.value


def checkin(graph, message=None, place=GRAPH_PAGE, **fields):
    return graph.put_object("me", "checkins", place=place, message=message or unique("Espresso"), **fields)


# ---- reading ----

def test_get_object_me(graph, control):
    me = graph.get_object("me")
    assert me["id"] == GRAPH_USER_ID
    assert isinstance(me["name"], str) and me["name"]  # Graph's default fields for a user: id, name
    assert control.last("/me")["path"] == f"/{graph.version}/me"


def test_get_version_reads_facebook_api_version_header(graph):
    # GraphAPI.get_version(): GET vX.Y/me, then the facebook-api-version response header.
    assert graph.get_version() == graph.version[1:]


def test_get_object_me_with_fields(graph):
    me = graph.get_object("me", fields="id,name")
    assert me["id"] == GRAPH_USER_ID and "name" in me


def test_fields_answer_what_is_asked_and_refuse_what_does_not_exist(graph, facebook_pages):
    # "Using the Graph API": GET /me?fields=id,name — the fields asked for, and id; a field the
    # node type lacks is "(#100) Tried accessing nonexisting field (…) on node type (…)".
    assert graph.get_object("me", fields="id") == {"id": GRAPH_USER_ID}
    assert graph.get_object(GRAPH_PAGE, fields="name") == {"id": GRAPH_PAGE, "name": facebook_pages[GRAPH_PAGE]["name"]}
    found = graph.search(type="place", center=f"{LAT},{LONG}", distance=2000, fields="name,location{city}")["data"]
    assert found and all(set(p) == {"id", "name", "location"} for p in found)
    post = checkin(graph)
    assert set(graph.get_object(post["id"], fields="message")) == {"id", "message"}
    assert all(set(c) == {"id", "place"} for c in graph.get_connections("me", "checkins", fields="place")["data"])
    both = graph.get_objects([GRAPH_PAGE, "1002"], fields="category")
    assert all(set(p) == {"id", "category"} for p in both.values())
    error = graph_error(lambda: graph.get_object("me", fields="id,bogus_field"))
    assert error.code == 100 and error.type == "OAuthException"
    assert error.message == "(#100) Tried accessing nonexisting field (bogus_field) on node type (User)"
    error = graph_error(lambda: graph.get_object(post["id"], fields="message,nope"))
    assert error.message == "(#100) Tried accessing nonexisting field (nope) on node type (Post)"


def test_get_object_page_by_id(graph, facebook_pages):
    page = graph.get_object(GRAPH_PAGE)
    assert page["id"] == GRAPH_PAGE
    assert page["name"] == facebook_pages[GRAPH_PAGE]["name"]


def test_get_objects_by_ids(graph, facebook_pages):
    # GET vX.Y/?ids=1001,1002: Graph answers {"1001": {...}, "1002": {...}}.
    pages = graph.get_objects([GRAPH_PAGE, "1002"])
    assert set(pages) == {GRAPH_PAGE, "1002"}
    assert pages["1002"]["name"] == facebook_pages["1002"]["name"]


def test_me_without_access_token_is_2500():
    graph = facebook.GraphAPI(timeout=30)
    error = graph_error(lambda: graph.get_object("me"))
    assert error.code == 2500 and error.type == "OAuthException"


def test_search_place_nearest_first(graph, facebook_pages):
    result = graph.search(type="place", center=f"{LAT},{LONG}", distance=500)
    pages = result["data"]
    assert pages[0]["id"] == GRAPH_PAGE
    for page in pages:
        assert page["name"] == facebook_pages[page["id"]]["name"]
        assert isinstance(page["location"]["latitude"], float)
        assert isinstance(page["location"]["longitude"], float)
    assert "paging" in result


def test_search_place_via_get_object(graph):
    result = graph.get_object("search", type="place", center=f"{LAT},{LONG}", distance=500, q="Coffee")
    assert [p["id"] for p in result["data"]][:1] == [GRAPH_PAGE]
    assert all("Coffee" in p["name"] for p in result["data"])


def test_search_place_paging(graph):
    everything = graph.search(type="place", center=f"{LAT},{LONG}", distance=2000)["data"]
    assert len(everything) >= 3
    first = graph.search(type="place", center=f"{LAT},{LONG}", distance=2000, limit=2)
    assert [p["id"] for p in first["data"]] == [p["id"] for p in everything[:2]]
    assert first["paging"]["next"].startswith("http")  # Graph sends next while there is more
    after = first["paging"]["cursors"]["after"]
    second = graph.search(type="place", center=f"{LAT},{LONG}", distance=2000, limit=2, after=after)
    assert [p["id"] for p in second["data"]] == [p["id"] for p in everything[2:4]]


def test_search_invalid_center_is_100(graph):
    error = graph_error(lambda: graph.search(type="place", center="north", distance=500))
    assert error.code == 100 and error.type == "OAuthException"
    error = graph_error(lambda: graph.search(type="place", distance=500))
    assert error.code == 100, "neither q nor center"


def test_search_place_by_name_alone(graph, facebook_pages):
    # Places Search: "Either the q or center parameter must be included in your query … center:
    # Required if you omit q."
    found = graph.search(type="place", q="coffee")["data"]
    assert found and all("coffee" in p["name"].lower() for p in found)
    assert {p["id"] for p in found} == {p["id"] for p in facebook_pages.values() if "coffee" in p["name"].lower()}


# ---- check-ins and posts ----

def test_put_checkin_and_read_it_back(graph, facebook_pages):
    coordinates = {"latitude": LAT, "longitude": LONG}
    message = unique("Espresso")
    created = checkin(graph, message, coordinates=json.dumps(coordinates))
    assert created["id"].startswith(GRAPH_USER_ID + "_")
    listed = graph.get_connections("me", "checkins")
    latest = listed["data"][0]
    assert latest["id"] == created["id"]
    assert latest["message"] == message
    assert latest["place"]["id"] == GRAPH_PAGE
    assert latest["place"]["name"] == facebook_pages[GRAPH_PAGE]["name"]
    assert latest["coordinates"] == coordinates
    created_time = datetime.datetime.strptime(latest["created_time"], "%Y-%m-%dT%H:%M:%S%z")
    assert abs((created_time - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) < 300


def test_checkins_paging_with_get_all_connections(graph):
    ids = [checkin(graph, unique(f"Check-in {n}"))["id"] for n in range(3)]
    page = graph.get_connections("me", "checkins", limit=2)
    assert [c["id"] for c in page["data"]] == [ids[2], ids[1]]
    assert "access_token=" in page["paging"]["next"]
    everything = list(graph.get_all_connections("me", "checkins", limit=2))
    assert [c["id"] for c in everything] == list(reversed(ids))


def test_a_cursor_marks_an_item_when_the_list_changes_between_pages(graph):
    # Graph's Pagination: "A cursor refers to a random string of characters which marks a specific
    # item in a list." Cursors that were positions repeated an item after a new check-in and
    # skipped one after a deletion (a black-box hunt).
    ids = [checkin(graph, unique(f"Check-in {n}"))["id"] for n in range(6)]
    first = graph.get_connections("me", "checkins", limit=3)
    assert [c["id"] for c in first["data"]] == [ids[5], ids[4], ids[3]]
    newer = checkin(graph, unique("Newer"))["id"]
    after = first["paging"]["cursors"]["after"]
    assert [c["id"] for c in graph.get_connections("me", "checkins", limit=3, after=after)["data"]] == [
        ids[2], ids[1], ids[0]]
    graph.delete_object(ids[5])
    assert [c["id"] for c in graph.get_connections("me", "checkins", limit=3, after=after)["data"]] == [
        ids[2], ids[1], ids[0]]
    # The page before the second is the three newer than it, as the list now stands.
    before = graph.get_connections("me", "checkins", limit=3, after=after)["paging"]["cursors"]["before"]
    assert [c["id"] for c in graph.get_connections("me", "checkins", limit=3, before=before)["data"]] == [
        newer, ids[4], ids[3]]


def test_put_feed_post(graph):
    created = graph.put_object("me", "feed", message=unique("Hello"), place=GRAPH_PAGE)
    assert created["id"].startswith(GRAPH_USER_ID + "_")


def test_feed_post_without_message_or_attachment_is_100(graph):
    # Graph's answer to an empty post, as clients log it: "(#100) Missing message or attachment".
    error = graph_error(lambda: graph.put_object("me", "feed"))
    assert error.code == 100 and error.type == "OAuthException"
    assert error.message == "(#100) Missing message or attachment"


def test_checkins_list_only_posts_with_a_place(graph):
    # Checkin: "represents a single visit to a location"; its `place` is "the Facebook Page that
    # represents the location of the checkin" — a status without one is not a check-in.
    status = graph.put_object("me", "feed", message=unique("Just words"))
    visit = checkin(graph)
    listed = [c["id"] for c in graph.get_connections("me", "checkins")["data"]]
    assert visit["id"] in listed and status["id"] not in listed


def test_delete_object_checkin(graph, control):
    keep = checkin(graph)
    gone = checkin(graph)
    assert graph.delete_object(gone["id"]) == {"success": True}  # DELETE vX.Y/2001_…
    entry = control.last(gone["id"])
    assert entry["method"] == "DELETE" and entry["path"] == f"/{graph.version}/{gone['id']}"
    assert [c["id"] for c in graph.get_connections("me", "checkins")["data"]] == [keep["id"]]


def test_duplicate_message_is_506(graph):
    message = unique("Same again")
    checkin(graph, message)
    error = graph_error(lambda: checkin(graph, message))
    assert error.code == 506
    assert error.type == "OAuthException"
    assert error.message == "(#506) Duplicate status message"


def test_checkin_without_valid_place_is_100(graph):
    error = graph_error(lambda: checkin(graph, place="no-such-page"))
    assert error.code == 100


# ---- permissions ----

def test_get_permissions(graph):
    assert graph.get_permissions("me") == GRAPH_PERMISSIONS
    listed = graph.get_connections("me", "permissions")["data"]
    assert {p["permission"]: p["status"] for p in listed} == {p: "granted" for p in GRAPH_PERMISSIONS}


def test_declined_permission_is_listed_declined(graph, control):
    control.permission("publish_checkins", "declined")
    assert graph.get_permissions("me") == GRAPH_PERMISSIONS - {"publish_checkins"}
    listed = {p["permission"]: p["status"] for p in graph.get_connections("me", "permissions")["data"]}
    assert listed["publish_checkins"] == "declined"


def test_revoking_permissions(graph):
    # "User permissions": DELETE /{user-id}/permissions/{permission-name} revokes one (listed
    # declined after, and a check-in needing it is refused); "Revoking Login": DELETE
    # /{user-id}/permissions revokes them all, and the app with them — the token is refused after
    # (190, subcode 458 "The user has not authorized the application").
    assert graph.delete_object("me/permissions/publish_checkins") == {"success": True}
    assert graph.get_object("me/permissions/publish_checkins")["data"] == [
        {"permission": "publish_checkins", "status": "declined"}]
    assert graph.get_permissions("me") == GRAPH_PERMISSIONS - {"publish_checkins"}
    assert graph.delete_object("me/permissions") == {"success": True}
    error = graph_error(lambda: graph.get_object("me"))
    assert error.code == 190 and error.type == "OAuthException"
    assert error.result["error"]["error_subcode"] == 458


def test_a_method_the_user_or_its_edges_lack(graph):
    # Graph answers a method an object does not take with GraphMethodException 100/33 ("Unsupported
    # delete request. Object with ID 'me' does not exist, …"), as it does for pages; an edge the
    # user does not have is "Unknown path components" (2500).
    for call in (lambda: graph.delete_object("me"), lambda: graph.delete_object("me/checkins"),
                 lambda: graph.put_object("me", "permissions")):
        error = graph_error(call)
        assert error.code == 100 and error.type == "GraphMethodException"
        assert error.result["error"]["error_subcode"] == 33
        assert error.message.startswith("Unsupported ") and "Object with ID 'me'" in error.message
    error = graph_error(lambda: graph.delete_object("me/likes"))
    assert error.code == 2500 and error.message == "Unknown path components: /likes"


def test_checkin_without_publish_permission_is_200(graph, control):
    control.permission("publish_checkins", "declined")
    control.permission("publish_actions", "declined")
    error = graph_error(lambda: checkin(graph))
    assert error.code == 200
    assert error.type == "OAuthException"
    assert error.message.startswith("(#200)")


# ---- token errors ----

@pytest.mark.parametrize("state,subcode", [
    ("expired", 463), ("password-changed", 460), ("app-not-installed", 458), ("checkpoint", 459),
    ("unconfirmed", 464), ("logged-out", 467),
])
def test_refused_token_is_190_with_subcode(graph, control, state, subcode):
    control.token_state(state)
    error = graph_error(lambda: graph.get_object("me"))
    assert error.code == 190
    assert error.type == "OAuthException"
    assert error.result["error"]["error_subcode"] == subcode
    assert error.message.startswith("Error validating access token")


def test_unknown_token_is_190(base_url):
    graph = facebook.GraphAPI(access_token="not-a-token", timeout=30)
    error = graph_error(lambda: graph.get_object("me"))
    assert error.code == 190 and error.type == "OAuthException"


def test_token_errors_say_so_in_www_authenticate(base_url):
    # Graph answers a refused token with `WWW-Authenticate: OAuth "Facebook Platform"
    # "invalid_token" "message"` and a missing one with "invalid_request"; fb_graph
    # (lib/fb_graph/exception.rb) reads it to raise InvalidToken rather than Unauthorized.
    import requests
    refused = requests.get(base_url + "/me", params={"access_token": "not-a-token"}, timeout=30)
    assert refused.headers["WWW-Authenticate"].startswith('OAuth "Facebook Platform" "invalid_token" "')
    missing = requests.get(base_url + "/me", timeout=30)
    assert missing.headers["WWW-Authenticate"] == (
        'OAuth "Facebook Platform" "invalid_request" '
        + '"' + missing.json()["error"]["message"] + '"')


def test_unknown_edge_of_me_is_2500(graph):
    error = graph_error(lambda: graph.get_connections("me", "no_such_edge"))
    assert error.code == 2500
    assert error.type == "OAuthException"
    assert "no_such_edge" in error.message
