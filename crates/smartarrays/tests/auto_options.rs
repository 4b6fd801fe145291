//! `Placement::Auto` and `Compression::Auto` through the core's advisor hook: every
//! constructor asks the installed advisor, fixed parts stay as the caller gave them, a missing
//! advisor or an unusable answer is a typed error, and values round-trip.
//!
//! The advisor is process-wide, so everything runs in one test function, in order.

use std::sync::{Arc, Mutex};

use smartarrays::array::{install_advisor, uninstall_advisor, Advice, Advise, AutoRequest};
use smartarrays::{
    ArrayOptions, Compression, Error, Placement, Runtime, SmartArray, Topology, Usage,
};

/// A scripted advisor: answers with a fixed placement and either the minimal or the natural
/// width, and remembers every request.
struct Scripted {
    placement: Placement,
    compress: bool,
    narrower_than_needed: bool,
    requests: Mutex<Vec<AutoRequest>>,
}

impl Advise for Scripted {
    fn advise(&self, request: &AutoRequest, _runtime: &Runtime) -> smartarrays::Result<Advice> {
        self.requests.lock().unwrap().push(request.clone());
        let minimal = smartarrays::codec::bits_needed(request.largest);
        let bits = if self.narrower_than_needed {
            minimal.saturating_sub(1).max(1)
        } else if self.compress {
            minimal
        } else {
            smartarrays::array::natural_bits(minimal)
        };
        Ok(Advice {
            placement: self.placement.clone(),
            bits,
            explanation: format!("scripted: {} at {bits} bits", self.placement),
        })
    }
}

fn scripted(placement: Placement, compress: bool) -> Arc<Scripted> {
    Arc::new(Scripted {
        placement,
        compress,
        narrower_than_needed: false,
        requests: Mutex::new(Vec::new()),
    })
}

#[test]
fn auto_options_resolve_through_the_installed_advisor() {
    let values: Vec<u64> = (0..70_001u64).map(|i| (i * 7919) % 5000).collect();
    let auto = ArrayOptions::new()
        .placement(Placement::Auto)
        .compression(Compression::Auto);

    // 1. No advisor: a clear, typed error, nothing built.
    uninstall_advisor();
    match SmartArray::from_slice(&values, &auto) {
        Err(Error::AutoUnresolved(message)) => {
            assert!(message.contains("smartarrays_adapt::install"), "{message}")
        }
        other => panic!("expected AutoUnresolved, got {other:?}"),
    }
    // Concrete options never need an advisor.
    let plain = SmartArray::from_slice(&values, &ArrayOptions::new()).unwrap();
    assert!(plain.advice().is_none());
    assert!(!plain.placement_was_advised());

    // 2. Both parts auto: the advisor's choice is used and reported.
    let advisor = scripted(Placement::Interleaved(vec![]), true);
    install_advisor(advisor.clone());
    let usage = Usage {
        accesses_per_element: 3.0,
        random_share: 0.25,
        ..Usage::default()
    };
    let array = SmartArray::from_slice(&values, &auto.clone().usage(usage.clone())).unwrap();
    assert_eq!(*array.placement(), Placement::Interleaved(vec![]));
    assert_eq!(array.bits(), 13); // 4999 needs 13 bits
    assert_eq!(array.to_vec(), values);
    assert!(array.advice().unwrap().explanation.starts_with("scripted"));
    assert!(array.placement_was_advised());
    {
        let requests = advisor.requests.lock().unwrap();
        let request = requests.last().unwrap();
        assert_eq!((request.len, request.largest), (values.len(), 4999));
        assert_eq!(
            (request.placement.clone(), request.compression),
            (Placement::Auto, Compression::Auto)
        );
        assert_eq!(request.usage, usage);
    }

    // 3. Only the placement is auto: the caller's width stays, whatever the advisor says.
    let array = SmartArray::from_slice(
        &values,
        &ArrayOptions::new().placement(Placement::Auto).bits(40),
    )
    .unwrap();
    assert_eq!(
        (array.placement().clone(), array.bits()),
        (Placement::Interleaved(vec![]), 40)
    );
    assert!(array.placement_was_advised());
    assert_eq!(
        advisor.requests.lock().unwrap().last().unwrap().compression,
        Compression::Exactly(40)
    );
    let array = SmartArray::from_slice(
        &values,
        &ArrayOptions::new()
            .placement(Placement::Auto)
            .compression(Compression::Uncompressed),
    )
    .unwrap();
    assert_eq!(array.bits(), 32);
    assert_eq!(array.to_vec(), values);

    // 4. Only the width is auto: the caller's placement stays.
    let advisor = scripted(Placement::Replicated, false);
    install_advisor(advisor.clone());
    let array = SmartArray::from_slice(
        &values,
        &ArrayOptions::new()
            .placement(Placement::SingleNode(0))
            .compression(Compression::Auto),
    )
    .unwrap();
    assert_eq!(
        (array.placement().clone(), array.bits()),
        (Placement::SingleNode(0), 32)
    );
    assert_eq!(array.to_vec(), values);
    // The advisor chose the width only: a copy elsewhere (a pickle) keeps the caller's placement.
    assert!(array.advice().is_some() && !array.placement_was_advised());

    // 5. Every constructor asks, at edge lengths, including a replicated answer on a described
    //    two-node machine (so there really are two replicas to fill).
    let topology = Arc::new(Topology::uniform(2, 2, 1 << 30).unwrap());
    let two_nodes = Arc::new(Runtime::on_described(topology, 3).unwrap());
    for len in [0usize, 1, 63, 64, 65, 1023, 1025] {
        let reference: Vec<u64> = (0..len as u64).map(|i| i * 3).collect();
        let options = auto.clone().runtime(Arc::clone(&two_nodes));
        let built = [
            SmartArray::from_slice(&reference, &options).unwrap(),
            SmartArray::from_fn(len, &options, |i| i as u64 * 3).unwrap(),
            SmartArray::from_batches(len, &options, |range, out| {
                for (slot, i) in out.iter_mut().zip(range) {
                    *slot = i as u64 * 3;
                }
            })
            .unwrap(),
        ];
        for array in built {
            assert_eq!(*array.placement(), Placement::Replicated, "len {len}");
            assert_eq!(array.replica_count(), 2);
            assert_eq!(array.bits(), 32);
            assert_eq!(array.to_vec(), reference, "len {len}");
            assert!(array.advice().is_some());
        }
    }
    let zeros =
        SmartArray::zeroed(100, 7, &ArrayOptions::new().placement(Placement::Auto)).unwrap();
    assert_eq!(
        (zeros.bits(), zeros.placement().clone()),
        (7, Placement::Replicated)
    );

    // 6. An answer that cannot hold the data, or that is still "auto", is refused.
    install_advisor(Arc::new(Scripted {
        placement: Placement::OsDefault,
        compress: true,
        narrower_than_needed: true,
        requests: Mutex::new(Vec::new()),
    }));
    assert!(
        matches!(SmartArray::from_slice(&values, &auto), Err(Error::AutoUnresolved(m)) if m.contains("needs 13"))
    );
    install_advisor(scripted(Placement::Auto, true));
    assert!(matches!(
        SmartArray::from_slice(&values, &auto),
        Err(Error::AutoUnresolved(_))
    ));

    // 7. Value checks still apply to a fixed width under an auto placement.
    install_advisor(scripted(Placement::OsDefault, true));
    assert!(matches!(
        SmartArray::from_slice(
            &values,
            &ArrayOptions::new().placement(Placement::Auto).bits(8)
        ),
        Err(Error::ValueTooWide { bits: 8, .. })
    ));
    uninstall_advisor();
}

#[test]
fn names_parse() {
    assert_eq!("auto".parse::<Placement>().unwrap(), Placement::Auto);
    assert_eq!(Placement::Auto.to_string(), "auto");
    assert_eq!(ArrayOptions::new().compression, Compression::Minimal);
    assert_eq!(
        ArrayOptions::new().bits(9).compression,
        Compression::Exactly(9)
    );
    for (text, compression) in [
        ("auto", Compression::Auto),
        ("minimal", Compression::Minimal),
        ("uncompressed", Compression::Uncompressed),
        ("9", Compression::Exactly(9)),
    ] {
        assert_eq!(text.parse::<Compression>().unwrap(), compression);
        assert_eq!(compression.to_string(), text);
    }
}
