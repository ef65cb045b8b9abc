import Testing

@testable import HTTP

@Suite struct EntityTagTests {
    let etag = #"W/"0123456789abcdef""#

    @Test func matchesTheSameWeakTag() {
        #expect(EntityTag.matches(ifNoneMatch: etag, etag: etag))
    }

    @Test func comparesWeaklyIgnoringTheWPrefix() {
        #expect(EntityTag.matches(ifNoneMatch: #""0123456789abcdef""#, etag: etag))
    }

    @Test func matchesAMemberOfAListWithWhitespace() {
        #expect(EntityTag.matches(ifNoneMatch: #"W/"aaaa" ,\#tW/"0123456789abcdef" , "b""#, etag: etag))
        #expect(EntityTag.matches(ifNoneMatch: #"W/"x,y", W/"0123456789abcdef""#, etag: etag))
    }

    @Test func starMatchesAnything() {
        #expect(EntityTag.matches(ifNoneMatch: "*", etag: etag))
        #expect(EntityTag.matches(ifNoneMatch: #" W/"zz", * "#, etag: etag))
    }

    @Test func otherTagsAndEmptyHeadersDoNotMatch() {
        #expect(!EntityTag.matches(ifNoneMatch: #"W/"0123456789abcdee""#, etag: etag))
        #expect(!EntityTag.matches(ifNoneMatch: "", etag: etag))
        #expect(!EntityTag.matches(ifNoneMatch: " , ,", etag: etag))
        #expect(!EntityTag.matches(ifNoneMatch: #"W/"0123456789abcdef"#, etag: etag))
    }
}
