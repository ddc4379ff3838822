"""Links and lengths as twitter-text has them: the PyPI `twitter-text-parser` (a port of
twitter-text v3) against what the emulator answers for the same status.

Every link Twitter finds is wrapped in a 23-character t.co link, whose entity's expanded_url is
the link as written; the rest of the text is kept as written — a black-box hunt found
`https://example.com/menu)!` taken whole, the tweet's `)!` lost. A status is refused (403/186)
exactly when twitter-text's weighted length passes 280. Links written without a scheme
(`example.com/path`) are left out: the emulator does not find them (docs/emulator.md).
"""

import pytest
import requests
from requests_oauthlib import OAuth1
from twitter_text import extract_urls_with_indices, parse_tweet

from conftest import CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET, twitter_codes

TEXTS = [
    "Lunch (menu: https://example.com/menu)! Then coffee, https://example.com/cafe, ok?",
    "see https://en.wikipedia.org/wiki/Caf%C3%A9_(disambiguation). yes",
    "x http://a.b/c?d=e&f=g. end",
    "https://example.com/a(b(c)d)e) z",
    "http://localhost/x and http://example.com:8080/p.",
    "https://example.com/?q=a,b. ok",
    "go https://example.com/search?q=caf%C3%A9&x=1!",
    "(https://example.com) z",
    "see https://example.com. z",
    "@https://example.com z",
    "https://example.com/a_b-c+d=e#f z",
    "a https://www.example.co.uk:443/x?y",
    "café https://café.example.com/menu, 日本 https://example.jp/パス?",
    "[https://example.org/x] and \"https://example.org/y\"; https://example.org/z:",
]


def auth():
    return OAuth1(CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET)


def post(base_url, status):
    return requests.post(f"{base_url}/1.1/statuses/update.json", data={"status": status, "tweet_mode": "extended"},
                         auth=auth(), timeout=30)


@pytest.mark.parametrize("text", TEXTS)
def test_links_are_the_ones_twitter_text_finds(base_url, text):
    response = post(base_url, text)
    assert response.status_code == 200, response.text[:300]
    tweet = response.json()
    found = [u["url"] for u in extract_urls_with_indices(text)]
    assert [u["expanded_url"] for u in tweet["entities"]["urls"]] == found
    # The text around the links is kept as written; each link is a t.co link of 23 characters.
    rebuilt, last = "", 0
    for u in extract_urls_with_indices(text):
        start, end = u["indices"]
        rebuilt += text[last:start] + "\0" * 23
        last = end
    rebuilt += text[last:]
    answered = tweet["full_text"].replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    masked = answered
    for u in tweet["entities"]["urls"]:
        masked = masked.replace(u["url"], "\0" * 23, 1)
    assert masked == rebuilt


@pytest.mark.parametrize("tail", ["https://example.com/menu)!", "https://example.com/x.", "日本 https://example.com/p"])
@pytest.mark.parametrize("delta", [0, 1])
def test_a_status_is_refused_exactly_past_280_weighted(base_url, tail, delta):
    # Pads to twitter-text's 280, then one more.
    pad = 280 - parse_tweet(tail).weightedLength - 1 + delta
    text = "a" * pad + " " + tail
    assert parse_tweet(text).weightedLength == 280 + delta
    response = post(base_url, text)
    if parse_tweet(text).valid:
        assert response.status_code == 200, response.text[:300]
    else:
        assert response.status_code == 403 and 186 in twitter_codes(response.json()["errors"]), response.text[:300]
