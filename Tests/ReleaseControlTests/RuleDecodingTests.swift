import Clock
import JSON
import Testing

@testable import ReleaseControl

@Suite struct RuleDecodingTests {
    func failure(_ text: String) -> ValidationFailure? {
        do {
            _ = try RuleBody.decode(Fixture.json(text))
            return nil
        } catch {
            return error
        }
    }

    func pointers(_ f: ValidationFailure?) -> [String] { f?.problems.map(\.pointer) ?? [] }

    @Test func decodesEveryTypeAndRoundTripsThroughItsJSON() throws {
        let bodies = [
            #"{"type":"required_update","platforms":["ios"],"below":"2.4.0","store_url":"https://apps.example/x","message":"Please update"}"#,
            #"{"type":"optional_update","below":"2.5.0"}"#,
            #"{"type":"recommended_update","platforms":["android","web"],"below":"2.5.0","becomes_required_on":"2026-12-09T11:00:00.000Z"}"#,
            #"{"type":"maintenance","starts_at":"2026-12-02T12:00:00Z","ends_at":"2026-12-02T14:00:00+01:00","message":"Back soon"}"#,
            #"{"type":"sdk_switch","sdks":[{"name":"swift","below":"1.4.2"},{"name":"kotlin"}],"modules":["analytics","push_token_registration"],"ends_at":"2026-12-03T00:00:00.000Z"}"#,
        ]
        for text in bodies {
            let body = try RuleBody.decode(Fixture.json(text))
            let again = try RuleBody.decode(body.json)
            #expect(again == body)
            let rule = Rule(id: "r7", body: body)
            #expect(rule.json.objectValue?.keys.prefix(2) == ["id", "type"])
            #expect(try Rule.restore(rule.json) == rule)
        }
    }

    @Test func showsTimesInRFC3339UTCWithMilliseconds() throws {
        let body = try RuleBody.decode(
            Fixture.json(
                #"{"type":"maintenance","starts_at":"2026-12-02T12:00:00+01:00","ends_at":"2026-12-02T12:30:00.5Z"}"#
            )
        )
        #expect(body.json["starts_at"] == "2026-12-02T11:00:00.000Z")
        #expect(body.json["ends_at"] == "2026-12-02T12:30:00.500Z")
    }

    @Test func nonObjectBodyIsATypeError() {
        let f = failure("[1,2]")
        #expect(f?.status == 400)
        #expect(pointers(f) == [""])
    }

    @Test func missingTypeAndUnknownTypeAre422() {
        #expect(failure("{}")?.status == 422)
        #expect(pointers(failure("{}")) == ["/type"])
        let unknown = failure(#"{"type":"shutdown"}"#)
        #expect(unknown?.status == 422)
        #expect(unknown?.problems.first?.message.contains("required_update") == true)
    }

    @Test func wrongTypeOfTypeIs400() {
        #expect(failure(#"{"type":7}"#)?.status == 400)
    }

    @Test func missingBelowIs422AtSlashBelow() {
        let f = failure(#"{"type":"required_update"}"#)
        #expect(f?.status == 422)
        #expect(pointers(f) == ["/below"])
    }

    @Test func nullRequiredFieldCountsAsMissing() {
        #expect(pointers(failure(#"{"type":"required_update","below":null}"#)) == ["/below"])
        #expect(failure(#"{"type":"required_update","below":null}"#)?.status == 422)
    }

    @Test func badVersionIs422() {
        let f = failure(#"{"type":"optional_update","below":"2.x"}"#)
        #expect(f?.status == 422)
        #expect(pointers(f) == ["/below"])
        #expect(f?.problems.first?.message.contains("2.x") == true)
    }

    @Test func belowOfTheWrongTypeIs400() {
        let f = failure(#"{"type":"optional_update","below":240}"#)
        #expect(f?.status == 400)
        #expect(f?.problems.first?.isTypeError == true)
    }

    @Test func unknownPlatformPointsAtItsIndex() {
        let f = failure(#"{"type":"required_update","platforms":["ios","windows"],"below":"1.0"}"#)
        #expect(f?.status == 422)
        #expect(pointers(f) == ["/platforms/1"])
    }

    @Test func emptyPlatformListIs422() {
        #expect(pointers(failure(#"{"type":"required_update","platforms":[],"below":"1.0"}"#)) == ["/platforms"])
    }

    @Test func typeErrorWinsOver422AndAllProblemsAreListed() {
        let f = failure(#"{"type":"required_update","platforms":["ios",3,"windows"],"below":"x","message":5}"#)
        #expect(f?.status == 400)
        #expect(pointers(f) == ["/platforms/1", "/platforms/2", "/below", "/message"])
        #expect(f?.problems.filter(\.isTypeError).map(\.pointer) == ["/platforms/1", "/message"])
    }

    @Test func recommendedNeedsAValidDeadline() {
        #expect(pointers(failure(#"{"type":"recommended_update","below":"1.0"}"#)) == ["/becomes_required_on"])
        let bad = failure(#"{"type":"recommended_update","below":"1.0","becomes_required_on":"tomorrow"}"#)
        #expect(bad?.status == 422)
        #expect(pointers(bad) == ["/becomes_required_on"])
    }

    @Test func windowMustEndAfterItStarts() {
        let same = failure(
            #"{"type":"maintenance","starts_at":"2026-12-02T12:00:00Z","ends_at":"2026-12-02T12:00:00Z"}"#
        )
        #expect(same?.status == 422)
        #expect(pointers(same) == ["/ends_at"])
    }

    @Test func windowOfExactlySevenDaysIsAllowedAndOneMillisecondMoreIsNot() throws {
        _ = try RuleBody.decode(
            Fixture.json(#"{"type":"maintenance","starts_at":"2026-12-02T12:00:00Z","ends_at":"2026-12-09T12:00:00Z"}"#)
        )
        let over = failure(
            #"{"type":"maintenance","starts_at":"2026-12-02T12:00:00Z","ends_at":"2026-12-09T12:00:00.001Z"}"#
        )
        #expect(over?.status == 422)
        #expect(pointers(over) == ["/ends_at"])
        #expect(over?.problems.first?.message.contains("7 days") == true)
    }

    @Test func maintenanceMissingBothTimesListsBoth() {
        #expect(pointers(failure(#"{"type":"maintenance"}"#)) == ["/starts_at", "/ends_at"])
    }

    @Test func badTimeIs422() {
        let f = failure(#"{"type":"maintenance","starts_at":"2026-13-02T12:00:00Z","ends_at":"2026-12-02T12:00:00"}"#)
        #expect(f?.status == 422)
        #expect(pointers(f) == ["/starts_at", "/ends_at"])
    }

    @Test func switchValidatesSDKsAndModules() {
        let f = failure(
            #"{"type":"sdk_switch","sdks":[{"name":"swift","below":"1.x"},{"below":"1.0"},"kotlin"],"modules":["analytics","ads"],"ends_at":"2026-12-03T00:00:00Z"}"#
        )
        #expect(f?.status == 400)
        #expect(pointers(f) == ["/sdks/0/below", "/sdks/1/name", "/sdks/2", "/modules/1"])
    }

    @Test func switchNeedsNonEmptyModulesAndAnEnd() {
        let f = failure(#"{"type":"sdk_switch","modules":[]}"#)
        #expect(f?.status == 422)
        #expect(pointers(f) == ["/modules", "/ends_at"])
    }

    @Test func aTypoIsAnUnknownFieldThatSuggestsTheKnownKey() {
        let f = failure(#"{"type":"required_update","bellow":"2.0.0","platform":["ios"]}"#)
        #expect(f?.status == 422)
        #expect(f?.kind == .unknownField)
        #expect(pointers(f) == ["/bellow", "/platform", "/below"])
        #expect(f?.problems[0].message == "unknown field 'bellow' in a required_update rule (did you mean 'below'?)")
        #expect(
            f?.problems[1].message == "unknown field 'platform' in a required_update rule (did you mean 'platforms'?)"
        )
        #expect(f?.problems[2].kind == .missingField)
    }

    @Test func aFieldOfAnotherRuleTypeSaysWhereItBelongs() {
        let f = failure(#"{"type":"optional_update","below":"1.0","starts_at":"2026-12-03T00:00:00Z","colour":"red"}"#)
        #expect(pointers(f) == ["/starts_at", "/colour"])
        #expect(
            f?.problems[0].message
                == "unknown field 'starts_at' in an optional_update rule (starts_at belongs to maintenance rules)"
        )
        #expect(
            f?.problems[1].message.hasPrefix(
                "unknown field 'colour' in an optional_update rule (expected one of: below, message"
            ) == true
        )
    }

    @Test func unknownFieldsAreFoundEvenWithoutAType() {
        let f = failure(#"{"typ":"required_update","below":"2.0.0"}"#)
        #expect(pointers(f) == ["/type", "/typ"])
        #expect(f?.problems[1].message.contains("did you mean 'type'?") == true)
    }

    @Test func anIdIsAcceptedOnlyWhenItRepeatsTheRulesOwn() throws {
        let text =
            #"{"id":"r9","type":"optional_update","below":"1.0","platforms":null,"store_url":null,"message":null}"#
        #expect(try RuleBody.decode(Fixture.json(text), id: "r9").type == .optionalUpdate)
        let changed = try? RuleBody.decode(Fixture.json(text), id: "r3")
        #expect(changed == nil)
        do {
            _ = try RuleBody.decode(Fixture.json(text))
            Issue.record("an id on create must be refused")
        } catch {
            #expect(error.problems.map(\.pointer) == ["/id"])
            #expect(error.problems[0].message.contains("set by the server"))
        }
    }

    @Test func aRuleAsTheAPIShowsItDecodesBackToTheSameRule() throws {
        let bodies = [
            #"{"type":"recommended_update","below":"2.0","becomes_required_on":"2026-12-09T00:00:00Z","platforms":["ios"]}"#,
            #"{"type":"maintenance","starts_at":"2026-12-03T00:00:00Z","ends_at":"2026-12-03T01:00:00Z"}"#,
            #"{"type":"sdk_switch","sdks":[{"name":"swift"}],"modules":["all"],"ends_at":"2026-12-03T00:00:00Z"}"#,
        ]
        for text in bodies {
            let rule = try Rule.decode(Fixture.json(text), id: "r4")
            #expect(try Rule.decode(rule.json, id: "r4") == rule)
        }
    }

    @Test func unknownKeysInAnSDKsEntryAreRefused() {
        let f = failure(
            #"{"type":"sdk_switch","sdks":[{"name":"swift","bellow":"1.0"}],"modules":["all"],"ends_at":"2026-12-03T00:00:00Z"}"#
        )
        #expect(pointers(f) == ["/sdks/0/bellow"])
        #expect(f?.problems[0].message.contains("did you mean 'below'?") == true)
    }

    @Test func unknownTypesPlatformsAndModulesSuggestTheNearest() {
        #expect(
            failure(#"{"type":"requred_update","below":"1.0"}"#)?.problems[0].message.contains(
                "did you mean 'required_update'?"
            ) == true
        )
        #expect(
            failure(#"{"type":"required_update","below":"1.0","platforms":["andriod"]}"#)?.problems[0].message.contains(
                "did you mean 'android'?"
            ) == true
        )
    }

    @Test func timesOutsideFourDigitYearsAreRefused() {
        let f = failure(#"{"type":"sdk_switch","modules":["all"],"ends_at":"9999-12-31T23:00:00-05:00"}"#)
        #expect(pointers(f) == ["/ends_at"])
    }

    @Test func nullOptionalFieldsCountAsAbsent() throws {
        let body = try RuleBody.decode(
            Fixture.json(#"{"type":"required_update","below":"1.0","platforms":null,"store_url":null,"message":null}"#)
        )
        #expect(body.update?.platforms == nil)
        #expect(body.update?.storeURL == nil)
    }

    /// Once merged silently (GET then showed less than was sent); now refused at the repeat,
    /// as the schema's `uniqueItems` says.
    @Test func aRepeatedPlatformOrModuleIsRefusedAtTheRepeat() {
        let platforms = failure(#"{"type":"required_update","below":"1.0","platforms":["ios","ios","web"]}"#)
        #expect(pointers(platforms) == ["/platforms/1"])
        let modules = failure(
            #"{"type":"sdk_switch","modules":["errors","errors"],"ends_at":"2026-12-03T00:00:00.000Z"}"#
        )
        #expect(pointers(modules) == ["/modules/1"])
    }

    @Test func pointersCanBePrefixedForNestedDocuments() {
        let f = failure(#"{"type":"required_update"}"#)?.prefixingPointers(with: "/projects/0/rules/2")
        #expect(pointers(f) == ["/projects/0/rules/2/below"])
        #expect(f?.problems.first?.json["pointer"] == "/projects/0/rules/2/below")
    }
}
