"""httpx's client as the suite's clients use it, with the cookies an answer sets read only where it sets one.

httpx hands every answer to http.cookiejar through urllib's request and message forms, which it builds from the
request's and the answer's headers whether or not the answer sets a cookie: about a sixth of a request's CPU in the
client. The jar takes cookies only from Set-Cookie and Set-Cookie2 headers, so an answer with neither is left alone;
one with either is read as httpx reads it, and the jar keeps and sends back what it kept as before.

A request that chooses its own credential (no key, a wrong one, a form of the key) carries the NO_COOKIES extension:
it is sent without the jar's cookies (ApiClient removes the Cookie header httpx adds), and the jar keeps none its
answer sets, so that a target's session neither makes a keyless request keyed nor is changed by one.
"""

from __future__ import annotations

from http.cookiejar import CookieJar
from typing import Any

import httpx

SETTING_HEADERS = ("set-cookie", "set-cookie2")
NO_COOKIES = "wallet_conformance.no_cookies"  # a request's extension: it neither sends nor keeps the jar's cookies


class SetCookies(httpx.Cookies):
    """httpx's cookies, reading an answer only when it sets one, and never one to a request sent without them."""

    def extract_cookies(self, response: httpx.Response) -> None:
        if NO_COOKIES in response.request.extensions:
            return
        if any(name in response.headers for name in SETTING_HEADERS):
            super().extract_cookies(response)


class SetCookieClient(httpx.Client):
    """httpx.Client whose cookies are SetCookies (a CookieJar given is shared, as httpx shares it)."""

    def __init__(self, *, cookies: CookieJar, **options: Any) -> None:
        super().__init__(**options)
        self.cookies = cookies

    @property
    def cookies(self) -> httpx.Cookies:
        return self._set_cookies

    @cookies.setter
    def cookies(self, cookies: httpx.Cookies | CookieJar | dict[str, str] | list[tuple[str, str]] | None) -> None:
        self._set_cookies = SetCookies(cookies)
