import pytest

pytestmark = pytest.mark.anyio


async def test_smoke(wiki, client):
    r = await wiki.api(client, action="query", meta="siteinfo|userinfo|tokens", siprop="general|namespaces|statistics", formatversion="2")
    print(r)
    await wiki.edit_page("Apple", "Hello [[Banana]] [[Category:Fruit]] {{Stub}}")
    r = await wiki.api(client, action="query", prop="info|revisions", titles="apple|Nope|Bad<", rvprop="content|ids", rvslots="main", formatversion="2")
    print(r)
    r = await wiki.api(client, action="query", list="allpages", aplimit="1", generator="allpages", prop="info")
    print(r)
    await wiki.login(client, "Admin")
    tok = await wiki.csrf(client)
    r = await wiki.post(client, action="edit", title="Banana", text="Yellow", token=tok, formatversion="2")
    print(r)
    r = await wiki.api(client, action="paraminfo", modules="query+tokens|query+nosuch|edit", formatversion="2")
    print(r)
    assert 0
