// RUN: PYASC_ROUNDTRIP
// RUN: PYASC_CUSTOM_ROUNDTRIP
// RUN: pyasc-opt %s -t ascendc | filecheck %s --check-prefix=CPP

// A TPipe's event ids: AllocEventID / ReleaseEventID, used by SetFlag / WaitFlag.
func.func @k(%x: !ascendc.gm_addr) attributes {ascendc.kernel, ascendc.block_dim = 1 : i64} {
  %pipe = ascendc.tpipe : !ascendc.tpipe
  %e = ascendc.alloc_event_id %pipe, MTE2_V : index
  ascendc.set_flag MTE2_V, %e
  ascendc.wait_flag MTE2_V, %e
  ascendc.release_event_id %pipe, MTE2_V, %e
  func.return
}

// CHECK:      %e = ascendc.alloc_event_id %pipe, MTE2_V : index
// CHECK-NEXT: ascendc.set_flag MTE2_V, %e
// CHECK-NEXT: ascendc.wait_flag MTE2_V, %e
// CHECK-NEXT: ascendc.release_event_id %pipe, MTE2_V, %e

// CPP:      AscendC::TPipe pipe;
// CPP-NEXT: AscendC::TEventID e = pipe.AllocEventID<AscendC::HardEvent::MTE2_V>();
// CPP-NEXT: AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(e);
// CPP-NEXT: AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(e);
// CPP-NEXT: pipe.ReleaseEventID<AscendC::HardEvent::MTE2_V>(e);
