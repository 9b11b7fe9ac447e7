package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.Problem;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the two shapes share across vendors; NVIDIA's cases are in its module's tests. */
class RegisterFormatTest {
    private final Problems problems = new Problems("hami.io/node-x-register");

    @Test
    void legacyRecordsOfSevenFieldsHaveIndexZero() {
        // Iluvatar's test literal: 7 fields, so HAMi reports device_index="0" for every card.
        List<RegisteredCard> cards = RegisterFormat.LEGACY.decode(
                "GPU-a,10,8192,100,MR-V100,0,true:GPU-b,10,8192,100,MR-V100,0,true:", ModeField.IGNORED, problems);
        assertEquals(List.of(0, 0), cards.stream().map(RegisteredCard::index).toList());
        assertEquals(List.of(), problems.list());
    }

    @Test
    void aModeOnlyNvidiaReadsIsCarriedAsTextByOthers() {
        // Hygon's test literal writes mode "test"; HAMi never reads it for a DCU.
        String hygon = "test-0,1,1024,100,DCU,0,true,0,test:";
        assertEquals(List.of(new RegisteredCard("test-0", 0, 1, 1024, 100, "DCU", 0, CardMode.HAMI_CORE, true)),
                RegisterFormat.LEGACY.decode(hygon, ModeField.IGNORED, problems));
        assertEquals(List.of(), problems.list());
        assertEquals(List.of(), RegisterFormat.LEGACY.decode(hygon, ModeField.DECODED, problems));
        assertEquals(List.of("unknown_mode"), reasons());
    }

    @Test
    void jsonKeysMatchInAnyCase() {
        // Ascend's test literal has capitalised keys, which Go's decoder matches.
        List<RegisteredCard> cards = RegisterFormat.DEVICE_INFO_JSON.decode("[{\"ID\":\"GPU-0\",\"Count\":4,"
                + "\"Devmem\":8738,\"Devcore\":8,\"Type\":\"huawei.com/Ascend910\",\"Numa\":0,\"Health\":true}]",
                ModeField.IGNORED, problems);
        assertEquals(List.of(new RegisteredCard("GPU-0", 0, 4, 8738, 8, "huawei.com/Ascend910", 0, CardMode.HAMI_CORE,
                true)), cards);
    }

    @Test
    void eachFormatReadsOnlyItsShape() {
        assertEquals(List.of(), RegisterFormat.DEVICE_INFO_JSON.decode("GPU-a,1,1,1,T,0,true:", ModeField.IGNORED,
                problems));
        assertEquals(List.of(), RegisterFormat.LEGACY.decode("[{\"id\":\"GPU-a\"}]", ModeField.IGNORED, problems));
        // Split at its colon, the JSON is two records of one field each.
        assertEquals(List.of("bad_json", "wrong_field_count", "wrong_field_count"), reasons());
    }

    private List<String> reasons() {
        return problems.list().stream().map(Problem::reason).toList();
    }
}
